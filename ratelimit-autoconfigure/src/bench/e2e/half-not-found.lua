-- The control of half.lua: the never-limited route alternating with a path no route
-- matches, whose 404 the gateway writes itself. Shows whether the half-rejected slowdown
-- comes from the limiter or from alternating local and proxied responses on a connection:
--   wrk -t1 -c16 -d5s -s half-not-found.lua http://127.0.0.1:28081   (the none gateway)
local count = 0
request = function()
   count = count + 1
   if count % 2 == 0 then
      return wrk.format("GET", "/nothing/item", { ["X-Client"] = "client-2" })
   end
   return wrk.format("GET", "/open/item", { ["X-Client"] = "client-1" })
end
