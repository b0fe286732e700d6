-- The generic script's own, after header.lua and before the algorithms: the text of a
-- number, the calling node, and the definitions the assembler fills with each
-- algorithm's sections wrapped as functions, from which the algorithms' table is built
-- lazily.

-- A number as text that reads back as the same double: an integer (a count, a window
-- index, an instant in microseconds) with all its digits; anything else with the 17
-- significant digits a double holds (a fraction of a token), rather than tostring's 14.
local function exact(number)
	if number % 1 == 0 and math.abs(number) < 2 ^ 53 then
		return string.format('%d', number)
	end
	return string.format('%.17g', number)
end

-- The calling node, for the limits that count requests in flight: its id, and how long
-- its slots are leased, in milliseconds (dev.ratelimit.store.redis.ScriptProtocol).
local node, lease = ARGV[NODE_ARGUMENT], tonumber(ARGV[NODE_ARGUMENT + 1])

-- Only the algorithms a call uses are built: Redis runs the whole script on every call,
-- and building every algorithm's table of functions each time is a cost of its own.
local definitions = {}
local algorithms = setmetatable({}, {
	__index = function(built, code)
		local algorithm = definitions[code]()
		rawset(built, code, algorithm)
		return algorithm
	end,
})
