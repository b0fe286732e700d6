-- The generic script's own, after header.lua and before the algorithms' files.

-- The key lives until its state is as good as new again; an already new state is
-- simply forgotten. Only the sliding window log, a list of its own, expires this way:
-- the other states live in the bucket key, which lives as long as the tier's idle
-- timeout.
local function expire_in(key, us)
	local ms = math.ceil(us / 1000)
	if ms < 1 then
		redis.call('DEL', key)
	else
		redis.call('PEXPIRE', key, ms)
	end
end

-- Each algorithm: load (state now, rolled or refilled, nothing written; from the fields
-- its encode wrote, or none for a new bucket), probe (allowed, remaining, reset,
-- retry-after; nothing written), commit and refund (change the state and mark it
-- changed; the log writes its list), encode (the state's fields as text for the bucket
-- key; none for the log), describe (state for display).
-- Only the algorithms a call uses are built: Redis runs the whole script on every call,
-- and building all five tables of functions each time costs about a fifth of a token
-- bucket's decision (measured with src/bench/redis-script-cost.sh).
local definitions = {}
local algorithms = setmetatable({}, {
	__index = function(built, code)
		local algorithm = definitions[code]()
		rawset(built, code, algorithm)
		return algorithm
	end,
})
