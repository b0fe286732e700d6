-- Token bucket, token_bucket.lua's load, probe and commit in straight lines: a = tokens,
-- b = refill instant; none is a full bucket.
local tokens, at = a, b
if not tokens then
	tokens, at = quota, now
elseif now > at then
	-- A late reading neither refills nor moves the refill instant back.
	tokens = math.min(quota, tokens + (now - at) * rate / period)
	at = now
end
if tokens + EPSILON >= cost then
	local after = math.max(0, tokens - cost)
	local remaining = whole_units(after)
	-- When the next whole token arrives, not when the bucket is full again.
	local reset, missing = 0, remaining + 1 - after
	if remaining < quota and missing > EPSILON then
		reset = ceil_us(missing * period / rate)
	end
	reply = { 1, remaining, reset, 0 }
	fields = exact(after) .. ' ' .. exact(at)
else
	local retry_after, missing = 1, math.min(cost, quota) - tokens
	if missing > EPSILON then
		retry_after = math.max(1, ceil_us(missing * period / rate))
	end
	reply = { 0, whole_units(tokens), retry_after, retry_after }
end
