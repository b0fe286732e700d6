-- Fixed window, fixed_window.lua's load, probe and commit in straight lines: a = window
-- index, b = count; both integers.
local index, count = math.floor(now / period), 0
-- A reading older than the stored window counts in the stored window.
if a and a >= index then
	index, count = a, b
end
local until_end = math.min((index + 1) * period - now, period)
if cost <= quota - count then
	local after = count + cost
	reply = { 1, quota - after, (after > 0) and until_end or 0, 0 }
	written = string.format('%d%s%d %d', requests + 1, tagged, index, after)
else
	reply = { 0, quota - count, until_end, until_end }
end
