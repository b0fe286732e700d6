-- The lean script's entry point: an acquire on a tier of one limit, in straight lines
-- (no tables of functions to build per call: Redis runs the whole script on every call).
-- Its keys, arguments and reply: dev.ratelimit.store.redis.ScriptProtocol. It reads and
-- writes the bucket key as tier_driver.lua does, so that either script reads the other's
-- buckets. Its lines --@blocked and --@breach are those of tier_driver.lua.
local time = redis.call('TIME')
local now = time[1] * 1000000 + time[2]
--@blocked
-- The cost of one request, or those of several judged in order as if each came alone
-- (a shared call), separated by spaces and followed by '/<n>' when this node refused n
-- requests by itself since its last call: all are counted as judged. One request, the
-- usual call, needs no table of costs.
local cost, costs, cost_count, judged = tonumber(ARGV[1]), nil, 1, 0
if not cost then
	costs = {}
	for word in string.gmatch(ARGV[1], '%S+') do
		if string.byte(word) == 47 then
			judged = tonumber(string.sub(word, 2))
		else
			costs[#costs + 1] = tonumber(word)
		end
	end
	cost_count = #costs
end
judged = judged + cost_count
-- The limit: quota, period, rate, max_delay, delay_after, the tier's idle timeout
-- (idle_ms) and the limit's tag (tagged), written into each limit's script as constants
-- (dev.ratelimit.store.redis.LeanLimit), which Redis neither sends nor parses per call.
--@limit
local key = KEYS[2]
-- A window counted in calendar periods has no period: each call sends its periods after
-- the cost, and Redis TIME must fall in one of the first three (ScriptProtocol). As
-- tier_driver.lua reads them.
local periods
if not period then
	periods = {}
	for number in string.gmatch(ARGV[2], '%S+') do
		periods[#periods + 1] = tonumber(number)
	end
	periods.first = table.remove(periods, 1)
	if now < periods[1] or now >= periods[4] then
		error(string.format('Redis TIME %d is outside the calendar periods the gateway sent (%d to %d, in '
			.. 'microseconds): the clocks of Redis and the gateway differ by about a period', now, periods[1],
			periods[4]))
	end
	periods.index = periods.first + ((now >= periods[2]) and 1 or 0) + ((now >= periods[3]) and 1 or 0)
end
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
-- What the algorithm sets: the reply (each request's decision in turn) and, when it
-- consumed, the whole text to store, in one string.format; left nil, the limit's fields stay as they were read. And, when it
-- has an idle section, the microseconds until its state is as good as new.
local reply, written
local idle = 0
--@algorithm
if not written then
	written = string.format('%d', requests + judged)
	if fields_at then
		written = written .. tagged .. string.match(stored, '^[^|]*', fields_at)
	end
end
-- The tier's idle timeout, or longer for a debt: idleness forgives none.
redis.call('SET', KEYS[1], written, 'PX', math.max(idle_ms, math.ceil(idle / 1000)))
--@breach
return reply
