-- 200,000 clients drawn at random, on the never-limited route. Seeded per thread, so
-- every gateway gets the same sequence.
local keys = 200000
init = function(args)
   math.randomseed(42)
end
request = function()
   return wrk.format("GET", "/open/item", { ["X-Client"] = "client-" .. math.random(1, keys) })
end
