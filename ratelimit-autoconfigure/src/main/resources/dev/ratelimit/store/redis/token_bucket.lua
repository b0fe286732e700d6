-- Token bucket (dev.ratelimit.algorithm.TokenBucket): quota = capacity, rate tokens per
-- period microseconds. As a meter (max_delay 0) a request without its tokens is rejected;
-- shaping, it reserves the tokens still to come when they come within max_delay
-- microseconds: the tokens go below zero and it is held until they have come. A charge
-- takes tokens below zero too, metering or shaping: a debt that refills as a reservation
-- does, and no request has its tokens meanwhile. Fields: tokens, refill instant; none is
-- a full bucket.
--@fields tokens at
--@fractional tokens
--@load
if not tokens then
	tokens, at = quota, now
elseif now > at then
	-- A late reading neither refills nor moves the refill instant back.
	tokens = math.min(quota, tokens + (now - at) * rate / period)
	at = now
end
--@probe
-- Shaping, the wait for the tokens missing, rounded up to the microsecond so that no
-- request leaves early.
local hold = 0
if max_delay > 0 then
	local missing = cost - tokens
	local us = missing * period / rate
	hold = (missing > EPSILON and us > EPSILON) and math.ceil(us - EPSILON) or 0
	allowed = hold <= max_delay
else
	allowed = tokens + EPSILON >= cost
end
-- A probe of nothing (a peek) only describes: below zero, remaining 0 and the reset
-- when the next whole token has come.
allowed = allowed or cost == 0
local after = tokens
if allowed then
	after = tokens - cost
	if max_delay == 0 and cost > 0 then
		after = math.max(0, after)
	end
end
remaining = math.floor(after + EPSILON)
if remaining < 0 then
	remaining = 0
end
-- Tokens missing: admitted, for the next whole token (not for a full bucket); a meter's
-- rejection, for the cost, or the whole capacity when the cost exceeds it.
local missing = 0
if allowed then
	if remaining < quota then
		missing = remaining + 1 - after
	end
elseif max_delay == 0 then
	missing = math.min(cost, quota) - tokens
end
local us = missing * period / rate
local wait = (missing > EPSILON and us > EPSILON) and math.ceil(us - EPSILON) or 0
if allowed then
	reset, retry_after, delay = wait, 0, hold
else
	-- Shaping, until the tokens to reserve come within the longest hold.
	wait = math.max(1, wait, math.ceil(hold - max_delay))
	reset, retry_after = wait, wait
end
--@commit
-- Shaping, the tokens go below zero: the reservations of held requests.
tokens = tokens - cost
if max_delay == 0 then
	tokens = math.max(0, tokens)
end
--@charge
tokens = tokens - units
--@refund
tokens = math.min(quota, tokens + units)
--@idle
-- Until the bucket is full again, a debt or reservation below zero paid back, as
-- TokenBucket.idleNanos: the tokens are those at `at`, which is now or later.
local missing = quota - tokens
local us = missing * period / rate
idle = (missing > EPSILON and us > EPSILON) and math.ceil(us - EPSILON) or 0
--@describe
described = { exact(tokens) }
