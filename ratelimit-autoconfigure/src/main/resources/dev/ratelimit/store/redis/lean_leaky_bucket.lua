-- Leaky bucket, leaky_bucket.lua's load, probe and commit in straight lines: a = level,
-- b = drain instant; none is an empty queue.
local level, at = a, b
if not level then
	level, at = 0, now
elseif now > at then
	level = math.max(0, level - (now - at) * rate / period)
	at = now
end
if level + cost <= quota + EPSILON then
	local after = math.min(quota, level + cost)
	local remaining = whole_units(quota - after)
	-- When the next whole slot drains, not when the queue is empty.
	local reset, draining = 0, after - (quota - remaining - 1)
	if remaining < quota and draining > EPSILON then
		reset = ceil_us(draining * period / rate)
	end
	reply = { 1, remaining, reset, 0 }
	fields = exact(after) .. ' ' .. exact(at)
else
	local retry_after, overflow = 1, math.min(level, level + cost - quota)
	if overflow > EPSILON then
		retry_after = math.max(1, ceil_us(overflow * period / rate))
	end
	reply = { 0, whole_units(quota - level), retry_after, retry_after }
end
