-- Sliding window counter, sliding_window_counter.lua's load, probe and commit in straight
-- lines: a = window index, b = current count, c = previous count.
local index, current, previous = math.floor(now / period), 0, 0
if a then
	if index <= a then
		index, current, previous = a, b, c
	elseif index == a + 1 then
		previous = b
	end
end
local elapsed = math.max(0, now - index * period)
local estimate = current + previous * ((period - elapsed) / period)
-- Admitted, the reset is when one more than the remaining fits (the estimate falls
-- continuously); rejected, the retry-after is when the cost fits: both are the wait
-- until `units` fit, the current window holding `holding` (until_fits).
local allowed, remaining, holding, units
if estimate + cost <= quota + EPSILON then
	allowed, remaining = 1, whole_units(quota - estimate - cost)
	holding, units = current + cost, remaining + 1
else
	allowed, remaining = 0, whole_units(quota - estimate)
	holding, units = current, cost
end
local wait = 0
if allowed == 0 or remaining < quota then
	local until_window_end = period - elapsed
	local room_now, room_next = quota - units - holding, quota - units
	if room_now >= 0 and previous > 0 then
		wait = math.max(1, ceil_us(period * (1 - room_now / previous) - elapsed))
	elseif room_next < 0 then
		-- Until empty.
		if holding > 0 then
			wait = until_window_end + period
		elseif previous > 0 then
			wait = until_window_end
		end
	elseif holding <= room_next then
		wait = until_window_end
	else
		wait = until_window_end + ceil_us(period * (1 - room_next / holding))
	end
end
if allowed == 1 then
	reply = { 1, remaining, wait, 0 }
	fields = exact(index) .. ' ' .. exact(holding) .. ' ' .. exact(previous)
else
	reply = { 0, remaining, wait, wait }
end
