-- Fixed window counter (dev.ratelimit.algorithm.FixedWindow): quota per period
-- microseconds, or per calendar period (periods, as the drivers read them). Fields:
-- window index, count.
--@fields index count
--@state start finish
--@load
-- A reading older than the stored window counts in the stored window.
local current = periods and periods.index or math.floor(now / period)
if not index or index < current then
	index, count = current, 0
end
-- Where the calendar period counted starts and ends.
if periods then
	start, finish = periods[index - periods.first + 1], periods[index - periods.first + 2]
	if not finish then
		error(string.format('the stored calendar period %d is later than the periods the gateway sent: '
			.. 'Redis TIME went back by more than a period', index))
	end
end
--@probe
-- A charge may have taken the count past the limit: nothing fits until the window ends,
-- and remaining stays 0. A probe of nothing (a peek) only describes. A late reading waits
-- for the whole window.
local until_end
if periods then
	until_end = finish - math.max(now, start)
else
	until_end = math.min((index + 1) * period - now, period)
end
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
local counted
if periods then
	counted = leased_at >= start and leased_at < finish
else
	counted = math.floor(leased_at / period) == index
end
if counted and count > 0 then
	count = math.max(0, count - units)
end
--@describe
described = { count }
