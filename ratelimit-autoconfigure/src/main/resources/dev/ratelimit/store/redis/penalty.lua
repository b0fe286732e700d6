-- The penalty box (dev.ratelimit.algorithm.Penalty), in microseconds of Redis time, with
-- the same rules: a block ends exactly at its end, a record is forgiven exactly at its
-- forgiveness, the step after the last is the last. ScriptAssembler puts the first two
-- sections into the penalized form of each driver; dev.ratelimit.store.redis.ScriptProtocol
-- lays out their keys, arguments and reply. The block key holds
-- '<step> <until> <forgiven>' and expires when the record is forgiven.
--@blocked
-- After `now`: the penalized form's own key and arguments are the last ones, taken off so
-- that the driver reads its keys and arguments as unpenalized. A block in force refuses
-- the request at once, touching nothing.
local forgive_after = tonumber(table.remove(ARGV))
local block_for = table.remove(ARGV)
local block_key = table.remove(KEYS)
local block_step, block_forgiven = 0, 0
local block = redis.call('GET', block_key)
if block then
	local step, until_at, forgiven_at = string.match(block, '^(%d+) (%d+) (%d+)$')
	block_step, block_forgiven, until_at = tonumber(step), tonumber(forgiven_at), tonumber(until_at)
	if now < until_at then
		return { BLOCKED, block_step, until_at - now, until_at, block_forgiven }
	end
end
--@breach
-- Before the reply: a decision some limit refused is a breach, which blocks for the next
-- step unless the record is forgiven (or there is none). The reply gets the penalty's
-- values in front of the decisions.
local refused = false
for i = 1, #reply, DECISION_VALUES do
	refused = refused or reply[i] == 0
end
local penalized = { BLOCK_NONE, 0, 0, 0, 0 }
if refused then
	local steps = {}
	for step in string.gmatch(block_for, '%d+') do
		steps[#steps + 1] = tonumber(step)
	end
	local step = 1
	if block_step > 0 and now < block_forgiven then
		step = math.min(block_step + 1, #steps)
	end
	local until_at = now + steps[step]
	local forgiven_at = until_at + forgive_after
	redis.call('SET', block_key, string.format('%d %d %d', step, until_at, forgiven_at), 'PX',
		string.format('%d', math.ceil((forgiven_at - now) / 1000)))
	penalized = { BLOCK_STARTED, step, until_at - now, until_at, forgiven_at }
end
for i = 1, #reply do
	penalized[#penalized + 1] = reply[i]
end
reply = penalized
--@peek
-- A script of its own, for the actuator: the block in force of KEYS[1], or nothing.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local block = redis.call('GET', KEYS[1])
if not block then
	return {}
end
local step, until_at, forgiven_at = string.match(block, '^(%d+) (%d+) (%d+)$')
until_at = tonumber(until_at)
if now >= until_at then
	return {}
end
return { tonumber(step), until_at - now, until_at, tonumber(forgiven_at) }
