-- 200,000 clients drawn at random, on the route given as the script's argument (the
-- never-limited /open/item by default). Seeded per thread, so every gateway and route
-- gets the same sequence.
local keys = 200000
local path = "/open/item"
init = function(args)
   math.randomseed(42)
   path = args[1] or path
end
request = function()
   return wrk.format("GET", path, { ["X-Client"] = "client-" .. math.random(1, keys) })
end
