-- Fixed window counter (dev.ratelimit.algorithm.FixedWindow): quota per period
-- microseconds. Fields: window index, count.
--@fields index count
--@load
-- A reading older than the stored window counts in the stored window.
local current = math.floor(now / period)
if not index or index < current then
	index, count = current, 0
end
--@probe
-- A charge may have taken the count past the limit: nothing fits until the window ends,
-- and remaining stays 0. A probe of nothing (a peek) only describes.
local until_end = math.min((index + 1) * period - now, period)
allowed = cost == 0 or cost <= quota - count
if allowed then
	-- Every unit comes back at once, at the end of the window.
	remaining, retry_after = math.max(0, quota - count - cost), 0
	reset = (count + cost > 0) and until_end or 0
else
	-- A rejection's reset is its retry-after.
	remaining, reset, retry_after = math.max(0, quota - count), until_end, until_end
end
--@commit
count = count + cost
--@charge
count = count + units
--@refund
if math.floor(leased_at / period) == index and count > 0 then
	count = math.max(0, count - units)
end
--@describe
described = { count }
