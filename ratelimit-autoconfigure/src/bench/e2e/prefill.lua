-- Clients of many-keys.lua in order, from the one after the offset given as the
-- script's argument, until all 200,000 are done: their buckets exist before the
-- measured runs, which then judge existing clients. e2e.sh runs it in short slices
-- (wrk waits out its duration even once every thread has stopped).
local keys = 200000
local offset = 0
local sent = 0
local answered = 0
init = function(args)
   offset = tonumber(args[1]) or 0
end
request = function()
   sent = sent + 1
   return wrk.format("GET", "/open/item", { ["X-Client"] = "client-" .. (((offset + sent - 1) % keys) + 1) })
end
response = function(status, headers, body)
   answered = answered + 1
   if offset + answered >= keys then
      wrk.thread:stop()
   end
end
