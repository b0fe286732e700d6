-- Leaky bucket as a meter (dev.ratelimit.algorithm.LeakyBucket): fields level, drain
-- instant; none is an empty queue. p.quota = capacity, p.rate units per p.period microseconds.
definitions[LEAKY_BUCKET] = function() return {
	load = function(key, now, p, level, at)
		if not level then
			return { level = 0, at = now }
		end
		local elapsed = now - at
		if elapsed > 0 then
			level = math.max(0, level - elapsed * p.rate / p.period)
			at = now
		end
		return { level = level, at = at }
	end,
	until_drained = function(p, units)
		if units <= EPSILON then
			return 0
		end
		return ceil_us(units * p.period / p.rate)
	end,
	probe = function(s, now, p, cost)
		local bucket = algorithms[LEAKY_BUCKET]
		if s.level + cost <= p.quota + EPSILON then
			local after = math.min(p.quota, s.level + cost)
			local remaining = whole_units(p.quota - after)
			-- When the next whole slot drains, not when the queue is empty.
			local reset = 0
			if remaining < p.quota then
				reset = bucket.until_drained(p, after - (p.quota - remaining - 1))
			end
			return 1, remaining, reset, 0
		end
		local overflow = math.min(s.level, s.level + cost - p.quota)
		local retry_after = math.max(1, bucket.until_drained(p, overflow))
		return 0, whole_units(p.quota - s.level), retry_after, retry_after
	end,
	encode = function(s)
		return exact(s.level) .. ' ' .. exact(s.at)
	end,
	commit = function(s, now, p, cost)
		s.level = math.min(p.quota, s.level + cost)
		s.changed = true
	end,
	refund = function(s, now, p, units, at)
		s.level = math.max(0, s.level - units)
		s.changed = true
	end,
	describe = function(s, now, p)
		return { exact(s.level) }
	end,
} end
