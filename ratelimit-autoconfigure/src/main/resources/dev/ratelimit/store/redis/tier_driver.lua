-- The generic script's entry point, after the algorithms: any tier, in any mode (acquire,
-- check, lease, settle, renew, peek). Its keys, arguments, stored text and reply:
-- dev.ratelimit.store.redis.ScriptProtocol, whose upper-case names (algorithm codes,
-- argument places and counts, reply strides) are declared in front of the script. Its
-- lines --@blocked and --@breach are where its penalized form, for an acquire or a check
-- under a penalty box, looks for the client's block and starts one (penalty.lua).
-- Microseconds since the Unix epoch: windows are aligned on multiples of their length
-- from the epoch, as on dev.ratelimit.support.MonotonicClock's timeline.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
--@blocked
local mode = ARGV[1]
local cost = tonumber(ARGV[2])
local ended = ARGV[ENDED_ARGUMENT] == '1'
local limit_count = #KEYS - 1
local bucket = KEYS[#KEYS]
local stored = redis.call('GET', bucket)

-- Nothing to describe.
if mode == 'peek' and not stored then
	return {}
end
-- Only the limits that count requests in flight, whose slots live in keys of their own:
-- a renewal, and a settlement of a bucket gone (it creates none), which still gives back
-- the request's slots.
local slots_only = mode == 'renew' or (mode == 'settle' and not stored)

local requests = 0
local params, states, segments = {}, {}, {}
if stored then
	requests = tonumber(string.match(stored, '^[^|]*'))
end
-- The periods arguments of the limits counted in calendar periods, after every limit's.
local periods_argument = FIXED_ARGUMENTS + limit_count * ARGUMENTS_PER_LIMIT
for i = 1, limit_count do
	local base = FIXED_ARGUMENTS + (i - 1) * ARGUMENTS_PER_LIMIT
	local p = {
		algorithm = algorithms[tonumber(ARGV[base + 1])],
		quota = tonumber(ARGV[base + 2]),
		period = tonumber(ARGV[base + 3]),
		rate = tonumber(ARGV[base + 4]),
		max_delay = tonumber(ARGV[base + 5]),
		delay_after = tonumber(ARGV[base + 6]),
		tag = ARGV[base + 7],
		key = KEYS[i],
	}
	if mode == 'lease' then
		-- A lease is spent in a node's memory, which holds no request: its limits meter.
		p.max_delay = 0
	end
	-- A window counted in calendar periods names its calendar in place of its period, and
	-- Redis TIME must fall in one of the first three of its periods (ScriptProtocol). As
	-- one_limit_driver.lua reads them.
	if not p.period then
		periods_argument = periods_argument + 1
		local periods = {}
		for number in string.gmatch(ARGV[periods_argument], '%S+') do
			periods[#periods + 1] = tonumber(number)
		end
		periods.first = table.remove(periods, 1)
		if now < periods[1] or now >= periods[4] then
			error(string.format('Redis TIME %d is outside the calendar periods the gateway sent (%d to %d, in '
				.. 'microseconds): the clocks of Redis and the gateway differ by about a period', now, periods[1],
				periods[4]))
		end
		periods.index = periods.first + ((now >= periods[2]) and 1 or 0) + ((now >= periods[3]) and 1 or 0)
		p.periods = periods
	end
	params[i] = p
	-- This limit's fields, as its encode wrote them; none when the bucket is new or the
	-- limit changed.
	local segment, a, b, c
	if stored then
		local _, tag_end = string.find(stored, '|' .. p.tag .. ' ', 1, true)
		if tag_end then
			segment = string.match(stored, '^[^|]*', tag_end + 1)
			a, b, c = string.match(segment, '^(%S+) ?(%S*) ?(%S*)$')
		end
	end
	segments[i] = segment
	if not slots_only or p.algorithm.counts_in_flight then
		states[i] = p.algorithm.load(now, p, tonumber(a), tonumber(b), tonumber(c))
	end
end

if slots_only then
	for i = 1, limit_count do
		local p = params[i]
		if p.algorithm.counts_in_flight then
			if mode == 'renew' then
				p.algorithm.renew(states[i], now, p, cost)
			elseif ended then
				p.algorithm.release(states[i], now, p)
			end
		end
	end
	-- The bucket lives at least as long as a lease, so that a request in flight finds it
	-- when it settles.
	if mode == 'renew' and stored and redis.call('PTTL', bucket) < lease then
		redis.call('PEXPIRE', bucket, lease)
	end
	return {}
end

local reply = {}
if mode == 'lease' then
	for lot = 0, REFUND_LOTS - 1 do
		local refund = tonumber(ARGV[FIRST_LOT_ARGUMENT + 2 * lot])
		if refund > 0 then
			local refund_at = tonumber(ARGV[FIRST_LOT_ARGUMENT + 1 + 2 * lot])
			for i = 1, limit_count do
				params[i].algorithm.refund(states[i], now, params[i], refund, refund_at)
			end
		end
	end
	local grant = tonumber(ARGV[4])
	for i = 1, limit_count do
		local _, remaining = params[i].algorithm.probe(states[i], now, params[i], 0)
		grant = math.min(grant, remaining)
	end
	if grant > 0 then
		for i = 1, limit_count do
			params[i].algorithm.commit(states[i], now, params[i], grant)
		end
	end
	reply = { grant, now }
end

if mode == 'settle' then
	-- Units charged without judging, or given back where they still count: taken at the
	-- request's decision, at or just before now less the time since (timed once Redis
	-- answered). Then, the exchange ended, its slots.
	local consumed_at = now - tonumber(ARGV[6])
	for i = 1, limit_count do
		local p = params[i]
		if cost > 0 then
			p.algorithm.charge(states[i], now, p, cost)
		elseif cost < 0 then
			p.algorithm.refund(states[i], now, p, -cost, consumed_at)
		end
		if ended and p.algorithm.counts_in_flight then
			p.algorithm.release(states[i], now, p)
		end
	end
end

if mode == 'peek' or mode == 'settle' then
	reply = { requests }
	for i = 1, limit_count do
		local p = params[i]
		local _, remaining, reset = p.algorithm.probe(states[i], now, p, 0)
		local described = p.algorithm.describe(states[i], now, p)
		reply[#reply + 1] = remaining
		reply[#reply + 1] = reset
		for j = 1, STATE_VALUES do
			reply[#reply + 1] = described[j] ~= nil and tostring(described[j]) or ''
		end
	end
	if mode == 'peek' then
		return reply
	end
else
	-- Each decision: admitted, remaining, reset, retry-after, delay (as
	-- dev.ratelimit.algorithm.Decision).
	local decisions, allowed = {}, true
	for i = 1, limit_count do
		local p = params[i]
		decisions[i] = { p.algorithm.probe(states[i], now, p, cost) }
		allowed = allowed and decisions[i][1] == 1
	end
	if mode == 'acquire' or mode == 'check' then
		for i = 1, limit_count do
			local p = params[i]
			if allowed then
				-- A check takes only the slots: the other limits' cost is charged once the
				-- response has shown it.
				if mode == 'acquire' or p.algorithm.counts_in_flight then
					p.algorithm.commit(states[i], now, p, cost)
				else
					-- It reports what it holds, the cost not taken, as Bucket.check does.
					decisions[i] = { p.algorithm.probe(states[i], now, p, 0) }
				end
			elseif decisions[i][1] == 1 then
				-- A limit that would have admitted a rejected request consumes nothing: it
				-- reports what it holds, as dev.ratelimit.algorithm.Bucket does.
				decisions[i] = { p.algorithm.probe(states[i], now, p, 0) }
			end
		end
	end
	for i = 1, limit_count do
		for j = 1, DECISION_VALUES do
			reply[#reply + 1] = decisions[i][j]
		end
	end
end

-- One write for the whole bucket: a limit left as it was keeps its text as it was read
-- (nothing to format, nothing rounded), a new or changed one is encoded. It lives for the
-- tier's idle timeout, longer while a limit is in debt, until the debt is repaid (a
-- debt is not forgiven by idleness), and a bucket with requests in flight at least as
-- long as their leases.
local expiry = tonumber(ARGV[3])
local written = { exact(requests + tonumber(ARGV[5])) }
for i = 1, limit_count do
	local segment = segments[i]
	if states[i].changed then
		segment = params[i].algorithm.encode(states[i])
	end
	if segment then
		written[#written + 1] = params[i].tag .. ' ' .. segment
	end
	if params[i].algorithm.idle then
		expiry = math.max(expiry, math.ceil(params[i].algorithm.idle(states[i], now, params[i]) / 1000))
	end
	if params[i].algorithm.counts_in_flight then
		expiry = math.max(expiry, lease)
	end
end
redis.call('SET', bucket, table.concat(written, '|'), 'PX', expiry)
--@breach
return reply
