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
-- Tokens missing: admitted, for the next whole token (not for a full bucket); rejected,
-- for the cost, or the whole capacity when the cost exceeds it.
local missing = 0
if not allowed then
	missing = math.min(cost, quota) - tokens
elseif remaining < quota then
	missing = remaining + 1 - after
end
local wait = 0
if missing > EPSILON then
	local us = missing * period / rate
	if us > EPSILON then
		wait = math.ceil(us - EPSILON)
	end
end
if allowed then
	reply = { 1, remaining, wait, 0 }
	local format = (after % 1 == 0 and after < 2 ^ 53) and '%d%s%d %d' or '%d%s%.17g %d'
	written = string.format(format, requests + 1, tagged, after, at)
else
	wait = math.max(1, wait)
	reply = { 0, remaining, wait, wait }
end
