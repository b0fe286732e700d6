-- One client on the route given as the script's argument (the never-limited /open/item by
-- default); the request is formatted once per thread.
local request_text
init = function(args)
   request_text = wrk.format("GET", args[1] or "/open/item", { ["X-Client"] = "client-1" })
end
request = function()
   return request_text
end
