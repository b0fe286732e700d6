-- Token bucket (dev.ratelimit.algorithm.TokenBucket): fields tokens, refill instant;
-- none is a full bucket. p.quota = capacity, p.rate tokens per p.period microseconds.
definitions[TOKEN_BUCKET] = function() return {
	load = function(key, now, p, tokens, at)
		if not tokens then
			return { tokens = p.quota, at = now }
		end
		local elapsed = now - at
		-- A late reading neither refills nor moves the refill instant back.
		if elapsed > 0 then
			tokens = math.min(p.quota, tokens + elapsed * p.rate / p.period)
			at = now
		end
		return { tokens = tokens, at = at }
	end,
	until_holding = function(p, target, tokens)
		local missing = target - tokens
		if missing <= EPSILON then
			return 0
		end
		return ceil_us(missing * p.period / p.rate)
	end,
	probe = function(s, now, p, cost)
		local bucket = algorithms[TOKEN_BUCKET]
		if s.tokens + EPSILON >= cost then
			local after = math.max(0, s.tokens - cost)
			local remaining = whole_units(after)
			-- When the next whole token arrives, not when the bucket is full again.
			local reset = 0
			if remaining < p.quota then
				reset = bucket.until_holding(p, remaining + 1, after)
			end
			return 1, remaining, reset, 0
		end
		local retry_after = math.max(1, bucket.until_holding(p, math.min(cost, p.quota), s.tokens))
		return 0, whole_units(s.tokens), retry_after, retry_after
	end,
	encode = function(s)
		return exact(s.tokens) .. ' ' .. exact(s.at)
	end,
	commit = function(s, now, p, cost)
		s.tokens = math.max(0, s.tokens - cost)
		s.changed = true
	end,
	refund = function(s, now, p, units, at)
		s.tokens = math.min(p.quota, s.tokens + units)
		s.changed = true
	end,
	describe = function(s, now, p)
		return { exact(s.tokens) }
	end,
} end
