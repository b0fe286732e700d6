-- The generic script's own, after header.lua and before the algorithms' files: the
-- rounding helpers and the algorithms' table. The lean scripts state the same rules in
-- line, each once, rather than call these: a function defined here is a closure Redis
-- creates on every call of the script (LeanScriptEquivalenceTests holds both to the
-- same results).

local function ceil_us(us)
	if us <= EPSILON then
		return 0
	end
	return math.ceil(us - EPSILON)
end

local function whole_units(units)
	local whole = math.floor(units + EPSILON)
	if whole < 0 then
		return 0
	end
	return whole
end

-- A number as text that reads back as the same double: an integer (a count, a window
-- index, an instant in microseconds) with all its digits; anything else with the 17
-- significant digits a double holds (a fraction of a token), rather than tostring's 14.
local function exact(number)
	if number % 1 == 0 and math.abs(number) < 2 ^ 53 then
		return string.format('%d', number)
	end
	return string.format('%.17g', number)
end

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
