-- Leaky bucket as a meter (dev.ratelimit.algorithm.LeakyBucket): quota = capacity, rate
-- units drained per period microseconds. Fields: level, drain instant; none is an empty
-- queue.
--@fields level at
--@fractional level
--@load
if not level then
	level, at = 0, now
elseif now > at then
	level = math.max(0, level - (now - at) * rate / period)
	at = now
end
--@probe
allowed = level + cost <= quota + EPSILON
local after = level
if allowed then
	after = math.min(quota, level + cost)
end
remaining = math.floor(quota - after + EPSILON)
if remaining < 0 then
	remaining = 0
end
-- Units to drain: admitted, until the next whole slot (not until the queue is empty);
-- rejected, until the cost fits.
local overflow = 0
if not allowed then
	overflow = math.min(level, level + cost - quota)
elseif remaining < quota then
	overflow = after - (quota - remaining - 1)
end
local us = overflow * period / rate
local wait = (overflow > EPSILON and us > EPSILON) and math.ceil(us - EPSILON) or 0
if allowed then
	reset, retry_after = wait, 0
else
	wait = math.max(1, wait)
	reset, retry_after = wait, wait
end
--@commit
level = math.min(quota, level + cost)
--@refund
level = math.max(0, level - units)
--@describe
described = { exact(level) }
