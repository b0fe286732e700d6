#!/usr/bin/env bash
# What a hot key costs Redis (docs/benchmarks.md, "Fleet cost"): two gateways with the
# redis store on one Redis, each under wrk (FLEET_CONNECTIONS connections) on one hot
# token bucket (capacity FLEET_CAPACITY, refilled FLEET_RATE a second) that refuses most
# requests. Per variant: the commands the gateways sent Redis per request (INFO
# commandstats: the scripts' calls, EVALSHA or EVAL, and the health PINGs; not the
# commands a script runs inside Redis), requests and admissions, against
# the bound capacity + rate x (run + warm-up). Variants: `shared` (the defaults: shared
# calls and local refusals) and `each` (ratelimit.redis.shared-calls.max-batch=1 and
# ratelimit.redis.local-refusals=false: one call per request, as before), each on a fresh
# Redis, alternating over FLEET_ROUNDS rounds. With FLEET_CLUSTER=1 the Redis is a cluster of
# three masters (no replicas) that the gateways reach through spring.data.redis.cluster.nodes,
# the commands counted on all three.
#
# Usage (from anywhere): ratelimit-autoconfigure/src/bench/fleet-cost.sh
# Environment: FLEET_DURATION (s, 10), FLEET_WARMUP (s, 10), FLEET_ROUNDS (2),
# FLEET_CONNECTIONS (64), FLEET_CAPACITY (1000), FLEET_RATE (500), FLEET_BASE_PORT (29080),
# FLEET_OUTPUT (docs/benchmarks; writes fleet-cost.md and .csv there, and the charts
# fleet-cost-commands.png and fleet-cost-admitted.png), FLEET_CLUSTER (0, or 1).
# Needs wrk, nginx-light and redis-server (installed with apt-get when missing).
set -euo pipefail

MODULE=$(cd "$(dirname "$0")/../.." && pwd)
ROOT=$(dirname "$MODULE")
FILES=$MODULE/src/bench/e2e
WORK=$MODULE/target/fleet-cost
OUTPUT=${FLEET_OUTPUT:-$ROOT/docs/benchmarks}
DURATION=${FLEET_DURATION:-10}
WARMUP=${FLEET_WARMUP:-10}
ROUNDS=${FLEET_ROUNDS:-2}
CONNECTIONS=${FLEET_CONNECTIONS:-64}
CAPACITY=${FLEET_CAPACITY:-1000}
RATE=${FLEET_RATE:-500}
BASE_PORT=${FLEET_BASE_PORT:-29080}
UPSTREAM_PORT=$BASE_PORT
REDIS_PORT=$((BASE_PORT + 100))
CLUSTER=${FLEET_CLUSTER:-0}
[[ $CLUSTER == 0 || $CLUSTER == 1 ]] || { echo "FLEET_CLUSTER must be 0 or 1, not $CLUSTER" >&2; exit 1; }
if ((CLUSTER)); then
	REDIS_PORTS=("$REDIS_PORT" $((REDIS_PORT + 1)) $((REDIS_PORT + 2)))
	REDIS_OPTIONS=(--spring.data.redis.cluster.nodes="$(printf '127.0.0.1:%s,' "${REDIS_PORTS[@]}" | sed 's/,$//')")
else
	REDIS_PORTS=("$REDIS_PORT")
	REDIS_OPTIONS=()
fi
STARTED=()

# shellcheck source=lib.sh
source "$MODULE/src/bench/lib.sh"
LOG_NAME=fleet-cost
trap stop_all EXIT
install_missing wrk nginx-light redis-server

rm -rf "$WORK"
mkdir -p "$WORK" "$OUTPUT"
log "building the gateway"
(cd "$ROOT" && ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure compile)
CLASSPATH_ALL="$MODULE/target/bench-classes:$MODULE/target/classes:$(cat "$MODULE/target/bench-classpath.txt")"

# The commands the gateways sent, on every master: script calls and PINGs.
sent_commands() {
	local port
	for port in "${REDIS_PORTS[@]}"; do
		redis-cli -p "$port" info commandstats
	done | awk -F'[:=,]' '/^cmdstat_(evalsha|eval|evalsha_ro|eval_ro|ping):/ { calls += $3 } END { print calls + 0 }'
}

# A fresh Redis: one server, or three cluster masters holding the 16384 slots between them.
start_redis() {
	local port
	for port in "${REDIS_PORTS[@]}"; do
		local cluster=()
		((CLUSTER)) && cluster=(--cluster-enabled yes --cluster-config-file "$WORK/nodes-$port.conf")
		rm -f "$WORK/nodes-$port.conf"
		redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no "${cluster[@]}" \
			>"$WORK/redis-$port.log" 2>&1 &
		STARTED+=($!)
	done
	for port in "${REDIS_PORTS[@]}"; do
		local i
		for i in $(seq 50); do
			redis-cli -p "$port" ping >/dev/null 2>&1 && break
			sleep 0.2
		done
	done
	((CLUSTER)) || return 0
	redis-cli --cluster create $(printf '127.0.0.1:%s ' "${REDIS_PORTS[@]}") --cluster-replicas 0 --cluster-yes \
		>"$WORK/cluster-create.log" 2>&1 || fail "redis-cli --cluster create failed (see $WORK/cluster-create.log)"
	for i in $(seq 50); do
		redis-cli -p "$REDIS_PORT" cluster info | grep -q '^cluster_state:ok' && return 0
		sleep 0.2
	done
	fail "the cluster did not reach cluster_state:ok"
}

flush_redis() {
	local port
	for port in "${REDIS_PORTS[@]}"; do
		redis-cli -p "$port" flushall >/dev/null
	done
}

# run VARIANT ROUND GATEWAY-OPTION...: one measured run on a fresh Redis and gateways.
run() {
	local variant=$1 round=$2
	shift 2
	start_nginx "$UPSTREAM_PORT"
	start_redis
	local gateway port
	for gateway in 1 2; do
		port=$((BASE_PORT + gateway))
		java -Xms512m -Xmx512m -cp "$CLASSPATH_ALL" dev.ratelimit.bench.e2e.BenchGatewayApplication \
			--spring.profiles.active=rl-redis --bench.port="$port" --bench.redis-port="$REDIS_PORT" \
			--bench.upstream="http://127.0.0.1:$UPSTREAM_PORT" --bench.hot-capacity="$CAPACITY" \
			--bench.hot-rate="$RATE" "${REDIS_OPTIONS[@]}" "$@" >"$WORK/gateway-$gateway.log" 2>&1 &
		STARTED+=($!)
	done
	for gateway in 1 2; do
		wait_for "http://127.0.0.1:$((BASE_PORT + gateway))/actuator/health/ping" "gateway $gateway"
	done
	log "$variant round $round: warm-up ${WARMUP}s"
	local loads=()
	for gateway in 1 2; do
		wrk -t1 -c"$CONNECTIONS" -d"${WARMUP}s" -s "$FILES/hot-key.lua" "http://127.0.0.1:$((BASE_PORT + gateway))" \
			>/dev/null 2>&1 &
		loads+=($!)
	done
	wait "${loads[@]}"
	# The measured run starts on a full bucket, so that the bound is its capacity plus
	# what it refills during the run.
	flush_redis
	local before after
	before=$(sent_commands)
	loads=()
	for gateway in 1 2; do
		wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$FILES/hot-key.lua" "http://127.0.0.1:$((BASE_PORT + gateway))" \
			>"$WORK/wrk-$variant-$round-$gateway.txt" 2>&1 &
		loads+=($!)
	done
	wait "${loads[@]}"
	after=$(sent_commands)
	local requests=0 refused=0 file count rejected
	for gateway in 1 2; do
		file="$WORK/wrk-$variant-$round-$gateway.txt"
		count=$(awk '/requests in/ { print $1 }' "$file")
		rejected=$(awk '/Non-2xx or 3xx responses/ { print $5 }' "$file")
		requests=$((requests + count))
		refused=$((refused + ${rejected:-0}))
	done
	local commands=$((after - before))
	local admitted=$((requests - refused))
	local bound=$((CAPACITY + RATE * (DURATION + 1)))
	echo "$variant,$round,$requests,$admitted,$bound,$commands" >>"$WORK/fleet-cost.csv"
	log "$variant round $round: $requests requests, $admitted admitted (bound $bound), $commands Redis commands," \
		"$(awk -v c="$commands" -v r="$requests" 'BEGIN { printf "%.3f", c / r }') per request"
	((admitted <= bound)) || fail "$variant admitted $admitted, above the bound $bound"
	stop_all
}

echo "variant,round,requests,admitted,bound,commands" >"$WORK/fleet-cost.csv"
for round in $(seq "$ROUNDS"); do
	if ((round % 2 == 1)); then
		run shared "$round"
		run each "$round" --ratelimit.redis.shared-calls.max-batch=1 --ratelimit.redis.local-refusals=false
	else
		run each "$round" --ratelimit.redis.shared-calls.max-batch=1 --ratelimit.redis.local-refusals=false
		run shared "$round"
	fi
done

cp "$WORK/fleet-cost.csv" "$OUTPUT/fleet-cost.csv"
{
	echo "Two gateways (redis store) on $( ((CLUSTER)) && echo "a Redis Cluster of three masters, Redis" || echo "one Redis")" \
		"$(redis-server --version | awk '{ print $3 }' | cut -d= -f2), wrk with" \
		"$CONNECTIONS connections on each for ${DURATION}s after ${WARMUP}s of warm-up, one hot token bucket (capacity" \
		"$CAPACITY, $RATE a second); $ROUNDS rounds, alternating; load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	echo "| variant | round | requests | admitted | bound (capacity + rate × (run + 1 s)) | Redis commands | per request |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	tail -n +2 "$WORK/fleet-cost.csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %.3f |\n", $1, $2, $3, $4, $5, $6, $6 / $3 }'
} >"$OUTPUT/fleet-cost.md"
java -cp "$CLASSPATH_ALL" -Dbench.output="$OUTPUT" dev.ratelimit.bench.e2e.FleetCostChart "$WORK/fleet-cost.csv" fleet-cost
log "wrote $OUTPUT/fleet-cost.md, fleet-cost-commands.png and fleet-cost-admitted.png"
