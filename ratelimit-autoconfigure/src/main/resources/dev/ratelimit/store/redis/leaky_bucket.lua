-- Leaky bucket (dev.ratelimit.algorithm.LeakyBucket): quota = capacity, rate units drained
-- per period microseconds. As a meter (max_delay 0) a request that fits passes at once; as
-- a queue it is held until the queue ahead of it has drained to the delay_after units that
-- pass at once, when that is within max_delay microseconds, else rejected at once. A
-- charge fills it above its capacity: nothing fits until it has drained. Fields: level,
-- drain instant; none is an empty queue.
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
-- A queue's hold, rounded up to the microsecond so that no request leaves early.
local hold = 0
if max_delay > 0 then
	local ahead = level - (delay_after - 1)
	local us = ahead * period / rate
	hold = (ahead > EPSILON and us > EPSILON) and math.ceil(us - EPSILON) or 0
end
local fits = level + cost <= quota + EPSILON
-- A probe of nothing (a peek) only describes: above the capacity, remaining 0 and the
-- reset when a unit fits.
allowed = (fits and hold <= max_delay) or cost == 0
local after = level
if allowed and cost > 0 then
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
	if not fits then
		overflow = math.min(level, level + cost - quota)
	end
elseif remaining < quota then
	overflow = after - (quota - remaining - 1)
end
local us = overflow * period / rate
local wait = (overflow > EPSILON and us > EPSILON) and math.ceil(us - EPSILON) or 0
if allowed then
	reset, retry_after, delay = wait, 0, hold
else
	-- Until the cost fits and the queue ahead has drained to within the longest hold.
	wait = math.max(1, wait, math.ceil(hold - max_delay))
	reset, retry_after = wait, wait
end
--@commit
level = math.min(quota, level + cost)
--@charge
level = level + units
--@refund
level = math.max(0, level - units)
--@idle
-- Until the queue has drained, a debt above the capacity included, as
-- LeakyBucket.idleNanos: the level is that at `at`, which is now or later.
local us = level * period / rate
idle = (level > EPSILON and us > EPSILON) and math.ceil(us - EPSILON) or 0
--@describe
-- A queue's also the seconds a request judged now would be held, as Java's describe.
if max_delay > 0 then
	local ahead = level - (delay_after - 1)
	local us = ahead * period / rate
	local hold = (ahead > EPSILON and us > EPSILON) and math.ceil(us - EPSILON) or 0
	described = { exact(level), exact(hold / 1000000) }
else
	described = { exact(level) }
end
