-- Shared by both scripts, the generic one (the algorithms' files and driver.lua) and
-- each lean one (lean_*.lua): time arithmetic in microseconds, the unit of Redis TIME,
-- with the same rounding rules as dev.ratelimit.algorithm, and numbers as text.
if redis.replicate_commands then
	-- Redis < 5 replicates scripts verbatim and forbids writes after TIME.
	redis.replicate_commands()
end

-- Tolerance on unit counts and on computed instants, as in Java's Nanos.
local EPSILON = 1e-9

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
