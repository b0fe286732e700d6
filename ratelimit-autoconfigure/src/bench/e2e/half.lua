-- Alternating the never-limited route (client-1) and the limited one (client-2, whose
-- quota is spent): every other request is rejected by a limiter, passed by the gateway
-- without one. One client per route, as Spring Cloud Gateway's Bucket4jRateLimiter
-- keys buckets by client only and would share one bucket between the routes.
local count = 0
request = function()
   count = count + 1
   if count % 2 == 0 then
      return wrk.format("GET", "/closed/item", { ["X-Client"] = "client-2" })
   end
   return wrk.format("GET", "/open/item", { ["X-Client"] = "client-1" })
end
