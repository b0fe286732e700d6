-- Fixed window counter (dev.ratelimit.algorithm.FixedWindow): hash {w = window index, c = count}.
definitions[FIXED_WINDOW] = function() return {
	load = function(key, now, p)
		local stored = redis.call('HMGET', key, 'w', 'c')
		local index = math.floor(now / p.period)
		local stored_index = tonumber(stored[1])
		-- A reading older than the stored window counts in the stored window.
		if stored_index and stored_index >= index then
			return { key = key, index = stored_index, count = tonumber(stored[2]) }
		end
		return { key = key, index = index, count = 0 }
	end,
	until_end = function(s, now, p)
		return math.min((s.index + 1) * p.period - now, p.period)
	end,
	probe = function(s, now, p, cost)
		local until_end = algorithms[FIXED_WINDOW].until_end(s, now, p)
		if cost <= p.quota - s.count then
			local after = s.count + cost
			-- Every unit comes back at once, at the end of the window.
			return 1, p.quota - after, (after > 0) and until_end or 0, 0
		end
		-- A rejection's reset is its retry-after.
		return 0, p.quota - s.count, until_end, until_end
	end,
	save = function(s, now, p)
		redis.call('HMSET', s.key, 'w', exact(s.index), 'c', exact(s.count))
		expire_in(s.key, algorithms[FIXED_WINDOW].until_end(s, now, p))
	end,
	commit = function(s, now, p, cost)
		s.count = s.count + cost
		algorithms[FIXED_WINDOW].save(s, now, p)
	end,
	refund = function(s, now, p, units, at)
		if math.floor(at / p.period) == s.index and s.count > 0 then
			s.count = math.max(0, s.count - units)
			algorithms[FIXED_WINDOW].save(s, now, p)
		end
	end,
	describe = function(s, now, p)
		return { s.count }
	end,
} end
