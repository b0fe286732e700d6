-- Sliding window counter, sliding_window_counter.lua's load, probe and commit in straight
-- lines: a = window index, b = current count, c = previous count; all integers.
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
local allowed, left, holding, units = 0, quota - estimate, current, cost
if estimate + cost <= quota + EPSILON then
	allowed, left, holding = 1, left - cost, current + cost
end
local remaining = math.floor(left + EPSILON)
if remaining < 0 then
	remaining = 0
end
if allowed == 1 then
	units = remaining + 1
end
local wait = 0
if allowed == 0 or remaining < quota then
	local until_window_end = period - elapsed
	local room_now, room_next = quota - units - holding, quota - units
	if room_now >= 0 and previous > 0 then
		local us = period * (1 - room_now / previous) - elapsed
		wait = math.max(1, (us > EPSILON) and math.ceil(us - EPSILON) or 0)
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
		local us = period * (1 - room_next / holding)
		wait = until_window_end + ((us > EPSILON) and math.ceil(us - EPSILON) or 0)
	end
end
if allowed == 1 then
	reply = { 1, remaining, wait, 0 }
	written = string.format('%d%s%d %d %d', requests + 1, tagged, index, holding, previous)
else
	reply = { 0, remaining, wait, wait }
end
