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
local allowed = tokens + EPSILON >= cost
local after = tokens
if allowed then
	after = math.max(0, tokens - cost)
end
local remaining = math.floor(after + EPSILON)
if remaining < 0 then
	remaining = 0
end
-- Tokens missing (the shortfall): admitted, for the next whole token (not for a full bucket); rejected,
-- for the cost, or the whole capacity when the cost exceeds it.
local shortfall = 0
if not allowed then
	shortfall = math.min(cost, quota) - tokens
elseif remaining < quota then
	shortfall = remaining + 1 - after
end
