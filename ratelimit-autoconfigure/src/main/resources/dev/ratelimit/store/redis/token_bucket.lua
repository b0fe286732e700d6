-- Token bucket (dev.ratelimit.algorithm.TokenBucket): quota = capacity, rate tokens per
-- period microseconds. Fields: tokens, refill instant; none is a full bucket.
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
allowed = tokens + EPSILON >= cost
local after = tokens
if allowed then
	after = math.max(0, tokens - cost)
end
remaining = math.floor(after + EPSILON)
if remaining < 0 then
	remaining = 0
end
-- Tokens missing: admitted, for the next whole token (not for a full bucket); rejected,
-- for the cost, or the whole capacity when the cost exceeds it.
local missing = 0
if not allowed then
	missing = math.min(cost, quota) - tokens
elseif remaining < quota then
	missing = remaining + 1 - after
end
local us = missing * period / rate
local wait = (missing > EPSILON and us > EPSILON) and math.ceil(us - EPSILON) or 0
if allowed then
	reset, retry_after = wait, 0
else
	wait = math.max(1, wait)
	reset, retry_after = wait, wait
end
--@commit
tokens = math.max(0, tokens - cost)
--@refund
tokens = math.min(quota, tokens + units)
--@describe
described = { exact(tokens) }
