-- The start of both scripts, the generic and each lean one. Both do time arithmetic in
-- microseconds, the unit of Redis TIME, with the same rounding rules as
-- dev.ratelimit.algorithm.
if redis.replicate_commands then
	-- Redis < 5 replicates scripts verbatim and forbids writes after TIME.
	redis.replicate_commands()
end

-- Tolerance on unit counts and on computed instants, where Java's Nanos compares with
-- epsilons of its own.
local EPSILON = 1e-9
