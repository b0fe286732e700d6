-- The lean acquire script: one bucket of one limit, mode acquire, in straight lines (no
-- tables of functions to build per call: Redis runs the whole script on every call). It
-- is header.lua, this file, one algorithm's lean_<algorithm>.lua (for the two buckets
-- followed by lean_bucket_reply.lua) and lean_write.lua; it
-- reads and writes the bucket key as driver.lua does (docs/redis.md, stored layout 2), so
-- that the generic script reads its buckets, and answers as the generic script answers an
-- acquire. dev.ratelimit.store.redis.ScriptProtocol lays out its call:
-- KEYS[1] the bucket key (KEYS[2] a sliding window log's list); ARGV: cost, idle-ms,
-- quota, period (microseconds), rate, and the limit's tag between '|' and ' ', as it
-- stands in the bucket key.
local time = redis.call('TIME')
local now = time[1] * 1000000 + time[2]
local cost, quota, period, rate = tonumber(ARGV[1]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local tagged = ARGV[6]
local stored = redis.call('GET', KEYS[1])
-- The limit's fields a, b, c (nil when absent), and where they start in the stored text.
local requests, fields_at, a, b, c = 0
if stored then
	requests = tonumber(string.match(stored, '^[^|]*'))
	local _, tag_end = string.find(stored, tagged, 1, true)
	if tag_end then
		fields_at = tag_end + 1
		a, b, c = string.match(stored, '^([^ |]+) ?([^ |]*) ?([^ |]*)', fields_at)
		a, b, c = tonumber(a), tonumber(b), tonumber(c)
	end
end
-- What the algorithm below sets: the reply (admitted, remaining, reset, retry-after, as
-- dev.ratelimit.algorithm.Decision) and, when it consumed, the whole text to store, in
-- one string.format (integers with %d, a fraction with %.17g, as algorithms.lua's
-- exact); left nil, the limit's fields stay as they were read.
local reply, written
