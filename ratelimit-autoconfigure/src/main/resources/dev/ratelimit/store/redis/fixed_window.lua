-- Fixed window counter (dev.ratelimit.algorithm.FixedWindow): fields window index, count.
definitions[FIXED_WINDOW] = function() return {
	load = function(key, now, p, stored_index, count)
		local index = math.floor(now / p.period)
		-- A reading older than the stored window counts in the stored window.
		if stored_index and stored_index >= index then
			return { index = stored_index, count = count }
		end
		return { index = index, count = 0 }
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
	encode = function(s)
		return exact(s.index) .. ' ' .. exact(s.count)
	end,
	commit = function(s, now, p, cost)
		s.count = s.count + cost
		s.changed = true
	end,
	refund = function(s, now, p, units, at)
		if math.floor(at / p.period) == s.index and s.count > 0 then
			s.count = math.max(0, s.count - units)
			s.changed = true
		end
	end,
	describe = function(s, now, p)
		return { s.count }
	end,
} end
