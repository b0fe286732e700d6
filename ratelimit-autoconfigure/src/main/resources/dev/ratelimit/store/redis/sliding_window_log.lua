-- Sliding window log (dev.ratelimit.algorithm.SlidingWindowLog): quota per period
-- microseconds. Its own list (`key`) holds the admission instants in microseconds,
-- oldest first; a unit admitted at t counts while now < t + period. The bucket key holds
-- nothing of it. Each entry is a list element of its own: a call touches the ends of the
-- list and the entries that expired, never the whole log, however long the limit makes it.
-- A charge may take it past the quota: nothing fits until enough entries have expired.
--@fields
--@state size oldest
--@load
-- The expired entries are the oldest (every entry is pushed at or after the newest), a
-- run from the head: find where it ends by doubling the index, then halving the gap,
-- so that a log that expired in large part costs a few LINDEX rather than one per
-- entry. `expired` is an index known expired, `kept` one known live or past the end
-- (LINDEX answers false there), `oldest` the instant at `kept` (false past the end).
oldest = redis.call('LINDEX', key, 0)
size = 0
if oldest then
	oldest = tonumber(oldest)
	if now - oldest >= period then
		local expired, kept, entry = 0, 1, redis.call('LINDEX', key, 1)
		while entry and now - tonumber(entry) >= period do
			expired, kept = kept, 2 * kept + 1
			entry = redis.call('LINDEX', key, kept)
		end
		oldest = entry and tonumber(entry)
		while kept - expired > 1 do
			local middle = math.floor((expired + kept) / 2)
			entry = redis.call('LINDEX', key, middle)
			if not entry or now - tonumber(entry) < period then
				kept, oldest = middle, entry and tonumber(entry)
			else
				expired = middle
			end
		end
		-- An emptied list is deleted.
		redis.call('LTRIM', key, kept, -1)
	end
	if oldest then
		size = redis.call('LLEN', key)
	end
end
--@probe
-- A probe of nothing (a peek) only describes.
allowed = cost <= quota - size or cost == 0
if allowed then
	-- A unit comes back when the oldest entry expires, past the quota when the log is back
	-- under it; the request's own entries are the oldest when the log was empty.
	remaining, reset, retry_after = math.max(0, quota - size - cost), 0, 0
	if size > quota then
		reset = math.max(0, tonumber(redis.call('LINDEX', key, size - quota)) + period - now)
	elseif size > 0 then
		reset = math.max(0, oldest + period - now)
	elseif cost > 0 then
		reset = period
	end
else
	-- The request fits once the oldest (size + cost - quota) units have expired.
	retry_after = 0
	local must_expire = math.min(size + cost - quota, size)
	if must_expire > 0 then
		retry_after = math.max(0, tonumber(redis.call('LINDEX', key, must_expire - 1)) + period - now)
	end
	remaining, reset = math.max(0, quota - size), retry_after
end
--@commit
-- Never before the newest entry, so that the log stays in order.
local at = now
if size > 0 then
	at = math.max(now, tonumber(redis.call('LINDEX', key, -1)))
end
-- Instants are whole microseconds (Redis TIME's): all their digits. unpack has a stack
-- limit: the entries go in chunks of 1000.
local entry = string.format('%d', at)
if cost == 1 then
	redis.call('RPUSH', key, entry)
elseif cost > 1 then
	local entries = {}
	for i = 1, math.min(cost, 1000) do
		entries[i] = entry
	end
	local left = cost
	while left > 0 do
		local chunk = math.min(left, 1000)
		redis.call('RPUSH', key, unpack(entries, 1, chunk))
		left = left - chunk
	end
end
-- The list lives until its newest entry expires (at least a period, as at >= now).
redis.call('PEXPIRE', key, math.ceil((at + period - now) / 1000))
if size == 0 and cost > 0 then
	oldest = at
end
size = size + cost
--@charge
-- Pushed as a commit's are, but at most quota of them: a log holding quota entries of
-- one instant refuses every request until they expire together, however many more it
-- would hold, and a cost reported by an upstream never makes a list of its size.
local at = now
if size > 0 then
	at = math.max(now, tonumber(redis.call('LINDEX', key, -1)))
end
local pushed = math.min(units, quota)
local entry = string.format('%d', at)
local entries = {}
for i = 1, math.min(pushed, 1000) do
	entries[i] = entry
end
local left = pushed
while left > 0 do
	local chunk = math.min(left, 1000)
	redis.call('RPUSH', key, unpack(entries, 1, chunk))
	left = left - chunk
end
redis.call('PEXPIRE', key, math.ceil((at + period - now) / 1000))
if size == 0 then
	oldest = at
end
size = size + pushed
--@refund
-- The newest entries at or before `leased_at`: a lease's were pushed at that instant, a
-- held request's at its decision, which a refund's `leased_at` is at or just after; the
-- later entries are later requests'. Equal instants are one run, each removed from the
-- tail with one LREM.
local left, later, removed = units, 0, 0
while left > 0 do
	local entry = redis.call('LINDEX', key, -1 - later)
	if not entry then
		break
	end
	if tonumber(entry) > leased_at then
		later = later + 1
	else
		local run = redis.call('LREM', key, -left, entry)
		left, removed = left - run, removed + run
	end
end
size = size - removed
if removed > 0 then
	local head = redis.call('LINDEX', key, 0)
	oldest = head and tonumber(head)
end
--@describe
described = { size }
