-- Leaky bucket, leaky_bucket.lua's load, probe and commit in straight lines: a = level,
-- b = drain instant; none is an empty queue.
local level, at = a, b
if not level then
	level, at = 0, now
elseif now > at then
	level = math.max(0, level - (now - at) * rate / period)
	at = now
end
local allowed = level + cost <= quota + EPSILON
local after = level
if allowed then
	after = math.min(quota, level + cost)
end
local remaining = math.floor(quota - after + EPSILON)
if remaining < 0 then
	remaining = 0
end
-- Units to drain: admitted, until the next whole slot (not until the queue is empty);
-- rejected, until the cost fits.
local draining = 0
if not allowed then
	draining = math.min(level, level + cost - quota)
elseif remaining < quota then
	draining = after - (quota - remaining - 1)
end
local wait = 0
if draining > EPSILON then
	local us = draining * period / rate
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
