-- Sliding window counter (dev.ratelimit.algorithm.SlidingWindowCounter): quota per period
-- microseconds, or per calendar period (periods, as the drivers read them);
-- estimate = current + previous * (1 - elapsed / length), length the current window's,
-- admitted when estimate + cost <= quota; a charge may take the counts past the quota, and
-- nothing fits until the estimate has fallen. Fields: window index, current count,
-- previous count.
--@fields index current previous
--@state elapsed length next_length
--@load
local now_index = periods and periods.index or math.floor(now / period)
if not index or now_index > index + 1 then
	index, current, previous = now_index, 0, 0
elseif now_index == index + 1 then
	index, current, previous = now_index, 0, current
end
-- The current window's length and the next one's: a calendar period's own.
if periods then
	local at = index - periods.first + 1
	if not periods[at + 2] then
		error(string.format('the stored calendar period %d is later than the periods the gateway sent: '
			.. 'Redis TIME went back by more than a period', index))
	end
	elapsed = math.max(0, now - periods[at])
	length, next_length = periods[at + 1] - periods[at], periods[at + 2] - periods[at + 1]
else
	elapsed = math.max(0, now - index * period)
	length, next_length = period, period
end
--@probe
local estimate = current + previous * ((length - elapsed) / length)
-- A probe of nothing (a peek) only describes: past the quota, remaining 0 and the reset
-- when a unit fits.
allowed = estimate + cost <= quota + EPSILON or cost == 0
-- Admitted, the reset is when one more than the remaining fits (the estimate falls
-- continuously); rejected, the retry-after is when the cost fits: both are the wait
-- until `units` fit, the current window holding `holding`.
local left, holding, units = quota - estimate, current, cost
if allowed then
	left, holding = left - cost, current + cost
end
remaining = math.floor(left + EPSILON)
if remaining < 0 then
	remaining = 0
end
if allowed then
	units = remaining + 1
end
local wait = 0
if not allowed or remaining < quota then
	local until_window_end = length - elapsed
	local room_now, room_next = quota - units - holding, quota - units
	if room_now >= 0 and previous > 0 then
		local us = length * (1 - room_now / previous) - elapsed
		wait = math.max(1, (us > EPSILON) and math.ceil(us - EPSILON) or 0)
	elseif room_next < 0 then
		-- Until empty.
		if holding > 0 then
			wait = until_window_end + next_length
		elseif previous > 0 then
			wait = until_window_end
		end
	elseif holding <= room_next then
		wait = until_window_end
	else
		local us = next_length * (1 - room_next / holding)
		wait = until_window_end + ((us > EPSILON) and math.ceil(us - EPSILON) or 0)
	end
end
if allowed then
	reset, retry_after = wait, 0
else
	reset, retry_after = wait, wait
end
--@commit
current = current + cost
--@charge
current = current + units
--@refund
local leased_index
if periods then
	-- Among the periods passed: units taken before the first of them, more than a period
	-- before the gateway's clock, are not given back.
	for i = 1, 4 do
		if leased_at >= periods[i] and leased_at < periods[i + 1] then
			leased_index = periods.first + i - 1
		end
	end
else
	leased_index = math.floor(leased_at / period)
end
if leased_index == index and current > 0 then
	current = math.max(0, current - units)
elseif leased_index == index - 1 and previous > 0 then
	previous = math.max(0, previous - units)
end
--@describe
described = { current, previous, exact(current + previous * ((length - elapsed) / length)) }
