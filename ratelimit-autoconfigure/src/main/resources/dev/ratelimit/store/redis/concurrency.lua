-- Concurrency limit (dev.ratelimit.algorithm.Concurrency): at most quota requests in
-- flight across the fleet, one slot each whatever its cost. Its own hash (`key`) holds
-- every node's slots as a lease: field the node's id, value '<slots> <expiry>' (Redis
-- time, microseconds). A node renews its lease while it has requests in flight, so that
-- the slots of a node gone (crashed, or cut off from Redis for longer than a lease)
-- expire and count no more; the hash expires with its latest lease. The bucket key holds
-- nothing of it. Only the generic script judges it, as only its arguments carry the
-- calling node's id (`node`) and its lease in milliseconds (`lease`). Its period is a
-- rejection's retry-after: no clock says when a slot frees.
--@fields
--@state in_flight own own_expiry latest
--@load
-- The live leases, summed; the expired ones are dropped.
in_flight, own, own_expiry, latest = 0, 0, 0, 0
local leases = redis.call('HGETALL', key)
local expired = {}
for i = 1, #leases, 2 do
	local slots, expiry = string.match(leases[i + 1], '^(%d+) (%d+)$')
	slots, expiry = tonumber(slots), tonumber(expiry)
	if expiry <= now then
		expired[#expired + 1] = leases[i]
	else
		in_flight = in_flight + slots
		latest = math.max(latest, expiry)
		if leases[i] == node then
			own, own_expiry = slots, expiry
		end
	end
end
if #expired > 0 then
	redis.call('HDEL', key, unpack(expired))
end
--@probe
-- A probe of nothing (a peek) describes the slots without taking one.
allowed = cost == 0 or in_flight < quota
if allowed then
	remaining = math.max(0, quota - in_flight - ((cost > 0) and 1 or 0))
	reset, retry_after = 0, 0
else
	remaining, reset, retry_after = 0, period, period
end
--@commit
-- The slot comes with the node's lease renewed.
if cost > 0 then
	own, own_expiry = own + 1, now + lease * 1000
	in_flight, latest = in_flight + 1, math.max(latest, own_expiry)
	redis.call('HSET', key, node, string.format('%d %d', own, own_expiry))
	redis.call('PEXPIRE', key, math.ceil((latest - now) / 1000))
end
--@charge
-- Requests are what it counts, not units.
--@refund
-- Requests are what it counts, not units: a slot comes back by release.
--@release
-- Never below zero: a slot whose lease expired is not given back twice.
if own > 0 then
	own, in_flight = own - 1, in_flight - 1
	if own == 0 then
		redis.call('HDEL', key, node)
	else
		redis.call('HSET', key, node, string.format('%d %d', own, own_expiry))
	end
end
--@renew
-- The lease renewed for the slots the node still counts (`held`), never more than it
-- holds: a slot it took but does not count (its call timed out after Redis had judged
-- it, and the failure mode decided) is dropped rather than renewed for as long as the
-- node lives.
local slots = math.min(own, held)
in_flight = in_flight - own + slots
if slots > 0 then
	own, own_expiry = slots, now + lease * 1000
	latest = math.max(latest, own_expiry)
	redis.call('HSET', key, node, string.format('%d %d', own, own_expiry))
	redis.call('PEXPIRE', key, math.ceil((latest - now) / 1000))
elseif own > 0 then
	own = 0
	redis.call('HDEL', key, node)
end
--@describe
described = { in_flight }
