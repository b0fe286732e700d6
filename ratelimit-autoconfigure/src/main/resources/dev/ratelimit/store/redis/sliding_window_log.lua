-- Sliding window log (dev.ratelimit.algorithm.SlidingWindowLog): a list of admission
-- instants in microseconds, oldest first, in a list key of its own (KEYS[i]); a unit
-- admitted at t counts while now < t + window. Nothing in the bucket key.
definitions[SLIDING_WINDOW_LOG] = function() return {
	load = function(key, now, p)
		while true do
			local oldest = redis.call('LINDEX', key, 0)
			if not oldest or now - tonumber(oldest) < p.period then
				break
			end
			redis.call('LPOP', key)
		end
		return { key = key, size = redis.call('LLEN', key) }
	end,
	until_expired = function(s, now, p, index)
		if index < 0 then
			return 0
		end
		return math.max(0, tonumber(redis.call('LINDEX', s.key, index)) + p.period - now)
	end,
	probe = function(s, now, p, cost)
		local log = algorithms[SLIDING_WINDOW_LOG]
		if cost <= p.quota - s.size then
			-- A unit comes back when the oldest entry expires; the request's own
			-- entries are the oldest when the log was empty.
			local reset = 0
			if s.size > 0 then
				reset = log.until_expired(s, now, p, 0)
			elseif cost > 0 then
				reset = p.period
			end
			return 1, p.quota - s.size - cost, reset, 0
		end
		-- The request fits once the oldest (size + cost - limit) units have expired.
		local must_expire = math.min(s.size + cost - p.quota, s.size)
		local retry_after = log.until_expired(s, now, p, must_expire - 1)
		return 0, p.quota - s.size, retry_after, retry_after
	end,
	commit = function(s, now, p, cost)
		local at = now
		if s.size > 0 then
			at = math.max(now, tonumber(redis.call('LINDEX', s.key, -1)))
		end
		-- unpack has a stack limit: push in chunks.
		local left = cost
		while left > 0 do
			local chunk = {}
			for i = 1, math.min(left, 1000) do
				chunk[i] = exact(at)
			end
			redis.call('RPUSH', s.key, unpack(chunk))
			left = left - #chunk
		end
		s.size = s.size + cost
		expire_in(s.key, at + p.period - now)
	end,
	refund = function(s, now, p, units, at)
		local removed = redis.call('LREM', s.key, -units, exact(at))
		s.size = s.size - removed
	end,
	encode = function(s)
		return nil
	end,
	describe = function(s, now, p)
		return { s.size }
	end,
} end
