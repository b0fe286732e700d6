-- Sliding window counter (dev.ratelimit.algorithm.SlidingWindowCounter): fields window
-- index, current count, previous count;
-- estimate = current + previous * (1 - elapsed / window), admitted when estimate + cost <= limit.
definitions[SLIDING_WINDOW_COUNTER] = function() return {
	load = function(key, now, p, stored_index, current, previous)
		local index = math.floor(now / p.period)
		local s = { index = index, current = 0, previous = 0 }
		if stored_index then
			if index <= stored_index then
				s.index = stored_index
				s.current = current
				s.previous = previous
			elseif index == stored_index + 1 then
				s.previous = current
			end
		end
		s.elapsed = math.max(0, now - s.index * p.period)
		return s
	end,
	estimate = function(s, p)
		return s.current + s.previous * ((p.period - s.elapsed) / p.period)
	end,
	until_empty = function(s, p, current)
		local until_window_end = p.period - s.elapsed
		if current > 0 then
			return until_window_end + p.period
		end
		if s.previous > 0 then
			return until_window_end
		end
		return 0
	end,
	-- Microseconds until `units` fit, the current window holding `current`.
	until_fits = function(s, p, current, units)
		local until_window_end = p.period - s.elapsed
		local room_now = p.quota - units - current
		if room_now >= 0 and s.previous > 0 then
			local at_elapsed = p.period * (1 - room_now / s.previous)
			return math.max(1, ceil_us(at_elapsed - s.elapsed))
		end
		local room_next = p.quota - units
		if room_next < 0 then
			return algorithms[SLIDING_WINDOW_COUNTER].until_empty(s, p, current)
		end
		if current <= room_next then
			return until_window_end
		end
		return until_window_end + ceil_us(p.period * (1 - room_next / current))
	end,
	probe = function(s, now, p, cost)
		local counter = algorithms[SLIDING_WINDOW_COUNTER]
		local estimate = counter.estimate(s, p)
		if estimate + cost <= p.quota + EPSILON then
			local remaining = whole_units(p.quota - estimate - cost)
			-- The estimate falls continuously: a unit comes back once one more than the
			-- remaining fits.
			local reset = 0
			if remaining < p.quota then
				reset = counter.until_fits(s, p, s.current + cost, remaining + 1)
			end
			return 1, remaining, reset, 0
		end
		local retry_after = counter.until_fits(s, p, s.current, cost)
		return 0, whole_units(p.quota - estimate), retry_after, retry_after
	end,
	encode = function(s)
		return exact(s.index) .. ' ' .. exact(s.current) .. ' ' .. exact(s.previous)
	end,
	commit = function(s, now, p, cost)
		s.current = s.current + cost
		s.changed = true
	end,
	refund = function(s, now, p, units, at)
		local at_index = math.floor(at / p.period)
		if at_index == s.index and s.current > 0 then
			s.current = math.max(0, s.current - units)
			s.changed = true
		elseif at_index == s.index - 1 and s.previous > 0 then
			s.previous = math.max(0, s.previous - units)
			s.changed = true
		end
	end,
	describe = function(s, now, p)
		return { s.current, s.previous, exact(algorithms[SLIDING_WINDOW_COUNTER].estimate(s, p)) }
	end,
} end
