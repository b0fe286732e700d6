-- The token and leaky bucket's lean scripts, after their algorithm: the wait for the
-- `shortfall` units at `rate` per `period` microseconds (reset when admitted,
-- retry-after when rejected), the reply, and on an admission the text to store, the
-- units `after` and the instant `at`.
local wait = 0
if shortfall > EPSILON then
	local us = shortfall * period / rate
	if us > EPSILON then
		wait = math.ceil(us - EPSILON)
	end
end
if allowed then
	reply = { 1, remaining, wait, 0 }
	local format = (after % 1 == 0 and after < 2 ^ 53) and '%d%s%d %d' or '%d%s%.17g %d'
	written = string.format(format, requests + 1, tagged, after, at)
else
	wait = math.max(1, wait)
	reply = { 0, remaining, wait, wait }
end
