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
-- Units to drain (the shortfall): admitted, until the next whole slot (not until the queue is empty);
-- rejected, until the cost fits.
local shortfall = 0
if not allowed then
	shortfall = math.min(level, level + cost - quota)
elseif remaining < quota then
	shortfall = after - (quota - remaining - 1)
end
