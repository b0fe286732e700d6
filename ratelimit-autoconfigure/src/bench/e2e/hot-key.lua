-- Every request on one bucket of the hot route (src/bench/fleet-cost.sh).
wrk.method = "GET"
wrk.path = "/hot/item"
wrk.headers["X-Hot"] = "everyone"
