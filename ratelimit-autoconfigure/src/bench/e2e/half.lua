-- Alternating the never-limited route (client-1) and the limited one (client-2, whose
-- quota is spent): every other request is rejected by a limiter, passed by the gateway
-- without one. One client per route, as Spring Cloud Gateway's Bucket4jRateLimiter
-- keys buckets by client only and would share one bucket between the routes.
-- An argument replaces the limited path, e.g. a path no route matches, whose 404 the
-- gateway writes itself, as a control without any limiter:
--   wrk -t1 -c16 -d5s -s half.lua http://127.0.0.1:28081 -- /nothing/item
local other = "/closed/item"
local count = 0
init = function(args)
   other = args[1] or other
end
request = function()
   count = count + 1
   if count % 2 == 0 then
      return wrk.format("GET", other, { ["X-Client"] = "client-2" })
   end
   return wrk.format("GET", "/open/item", { ["X-Client"] = "client-1" })
end
