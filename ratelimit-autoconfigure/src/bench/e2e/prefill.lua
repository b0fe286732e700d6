-- Clients of many-keys.lua in order, from the one after the offset given as the
-- script's first argument, on the route given as its second (/open/item by default),
-- until all 200,000 are done: their buckets exist before the
-- measured runs, which then judge existing clients. e2e.sh runs it in short slices
-- (wrk waits out its duration even once every thread has stopped).
local keys = 200000
local offset = 0
local path = "/open/item"
local sent = 0
local answered = 0
init = function(args)
   offset = tonumber(args[1]) or 0
   path = args[2] or path
end
request = function()
   sent = sent + 1
   return wrk.format("GET", path, { ["X-Client"] = "client-" .. (((offset + sent - 1) % keys) + 1) })
end
response = function(status, headers, body)
   answered = answered + 1
   if offset + answered >= keys then
      wrk.thread:stop()
   end
end
