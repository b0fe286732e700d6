-- The lean acquire script's end: one write for the bucket, as driver.lua's. A rejection
-- keeps the limit's fields as they were read, or has none for a new bucket.
if not written then
	written = string.format('%d', requests + 1)
	if fields_at then
		written = written .. tagged .. string.match(stored, '^[^|]*', fields_at)
	end
end
redis.call('SET', KEYS[1], written, 'PX', ARGV[2])
return reply
