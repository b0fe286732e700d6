-- One client on the never-limited route.
wrk.method = "GET"
wrk.path = "/open/item"
wrk.headers["X-Client"] = "client-1"
