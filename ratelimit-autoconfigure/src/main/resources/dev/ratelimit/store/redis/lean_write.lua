-- The lean acquire script's end: one write for the bucket, as driver.lua's.
if not fields and fields_at then
	fields = string.match(stored, '^[^|]*', fields_at)
end
local written = exact(requests + 1)
if fields then
	written = written .. tagged .. fields
end
redis.call('SET', KEYS[1], written, 'PX', ARGV[2])
return reply
