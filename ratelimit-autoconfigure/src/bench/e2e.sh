#!/usr/bin/env bash
# End-to-end comparison (docs/benchmarks.md, section 4): wrk on loopback against gateways
# built from this repository's dependencies, with the same two routes to one nginx
# upstream, each limited differently (src/bench/resources/bench-gateway.yml):
#
#   none          no limiter
#   none-twin     no limiter again, in a JVM of its own: the run's noise floor (an A/A
#                 comparison), since the two differ only by chance
#   rl-caffeine   our RateLimit filter, Caffeine store
#   rl-redis      our RateLimit filter, Redis store (exact)
#   rl-hybrid     our RateLimit filter, hybrid store
#   scg-redis     Spring Cloud Gateway's RequestRateLimiter with RedisRateLimiter
#   scg-bucket4j  Spring Cloud Gateway's RequestRateLimiter with Bucket4jRateLimiter (Caffeine)
#
# and, on request (E2E_VARIANTS), any of ours suffixed -unobserved: the same gateway with
# its decisions not observed (management.observations.enable.ratelimit=false), the
# control for what observing them costs.
#
# Workloads: one client on the open route (nothing rejected); one client alternating the
# open route and an exhausted one (half rejected); 200,000 clients at random (nothing
# rejected; every client's bucket exists before the measured runs). Each run is measured
# in rounds that alternate the gateways, so that drift on a busy machine hits all alike;
# each round starts one gateway later than the one before and every second round runs
# backwards (A B C D, B A D C, C D A B, D C B A), so that no gateway always runs first or
# always right after the same one. The report gives medians and ratios to `none` in the same round.
# Each run also records the gateway JVM's own CPU time per request (all its threads, from
# /proc), which other processes on a busy machine disturb less than throughput.
#
# Usage (from anywhere):
#   ratelimit-autoconfigure/src/bench/e2e.sh            # the comparison, writes docs/benchmarks/e2e.*
#   ratelimit-autoconfigure/src/bench/e2e.sh --profile [GATEWAY]  # JFR and heap histograms of one
#                                                      # gateway (rl-caffeine by default)
# Every gateway is warmed up (E2E_WARMUP s per workload), then again in passes of
# E2E_SETTLE s per workload until no gateway's JIT compiler is still busy (lib.sh, settle).
# Environment: E2E_DURATION (s per measured run, 8), E2E_WARMUP (s, 15), E2E_SETTLE (s, 5),
# E2E_SETTLE_PASSES (at most, 10), E2E_ROUNDS (4),
# E2E_CONNECTIONS (16), E2E_BASE_PORT (28080, below the ephemeral port range), E2E_OUTPUT (docs/benchmarks),
# E2E_VARIANTS (all seven, space-separated; `none` among them: ratios are to it).
# Installs wrk, nginx-light and redis-server with apt-get when missing. Every process it
# starts listens on 127.0.0.1 only and is stopped on exit.
set -euo pipefail

MODE=${1:-compare}
PROFILED=${2:-rl-caffeine}
MODULE=$(cd "$(dirname "$0")/../.." && pwd)
ROOT=$(dirname "$MODULE")
FILES=$MODULE/src/bench/e2e
WORK=$MODULE/target/e2e
OUTPUT=${E2E_OUTPUT:-$ROOT/docs/benchmarks}
DURATION=${E2E_DURATION:-8}
WARMUP=${E2E_WARMUP:-15}
SETTLE=${E2E_SETTLE:-5}
SETTLE_PASSES=${E2E_SETTLE_PASSES:-10}
ROUNDS=${E2E_ROUNDS:-4}
CONNECTIONS=${E2E_CONNECTIONS:-16}
BASE_PORT=${E2E_BASE_PORT:-28080}
UPSTREAM_PORT=$BASE_PORT
MANY_KEYS=200000
GATEWAY_JVM=(-Xms1g -Xmx1g -XX:+UseG1GC)
read -r -a VARIANTS <<<"${E2E_VARIANTS:-none none-twin rl-caffeine rl-redis rl-hybrid scg-redis scg-bucket4j}"
[[ " ${VARIANTS[*]} " == *" none "* ]] || { echo "E2E_VARIANTS must include none: ratios are to it" >&2; exit 1; }
# 200,000 buckets in one Redis per gateway would mostly measure the prefill.
MANY_KEY_VARIANTS=()
for variant in "${VARIANTS[@]}"; do
	case $variant in
		none | none-twin | rl-caffeine | rl-caffeine-unobserved | scg-bucket4j) MANY_KEY_VARIANTS+=("$variant") ;;
	esac
done

declare -A PORT
declare -A PID
declare -A REDIS_PORT
STARTED=()

# shellcheck source=lib.sh
source "$MODULE/src/bench/lib.sh"
LOG_NAME=e2e
trap stop_all EXIT

build() {
	log "building the gateway and the report tools"
	(cd "$ROOT" && ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure compile)
	CLASSPATH_ALL="$MODULE/target/bench-classes:$MODULE/target/classes:$(cat "$MODULE/target/bench-classpath.txt")"
}

# start_gateway VARIANT INDEX [JVM OPTION...]
start_gateway() {
	local variant=$1 port=$((BASE_PORT + 1 + $2))
	shift 2
	require_free_port "$port"
	PORT[$variant]=$port
	case $variant in
		rl-redis* | rl-hybrid* | scg-redis) start_redis "$variant" $((port - BASE_PORT - 1)) ;;
	esac
	local profile=${variant%-twin} options=()
	if [[ $variant == *-unobserved ]]; then
		profile=${variant%-unobserved}
		options+=(--management.observations.enable.ratelimit=false)
	fi
	java "${GATEWAY_JVM[@]}" "$@" -cp "$CLASSPATH_ALL" dev.ratelimit.bench.e2e.BenchGatewayApplication \
		--spring.profiles.active="$profile" --bench.port="$port" --bench.redis-port="${REDIS_PORT[$variant]:-0}" \
		--bench.upstream="http://127.0.0.1:$UPSTREAM_PORT" "${options[@]}" >"$WORK/$variant.log" 2>&1 &
	PID[$variant]=$!
	STARTED+=($!)
}

# The routes behave as the comparison assumes: open admits, closed rejects its client's
# second request (except without a limiter).
check_gateway() {
	local variant=$1 base="http://127.0.0.1:${PORT[$1]}" first second open
	wait_for "$base/actuator/health/ping" "gateway $variant (see $WORK/$variant.log)"
	open=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Client: check-open' "$base/open/item")
	first=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Client: check-closed' "$base/closed/item")
	second=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Client: check-closed' "$base/closed/item")
	local expected=429
	[[ $variant == none* ]] && expected=200
	if [[ $open != 200 || $first != 200 || $second != "$expected" ]]; then
		fail "gateway $variant answered open $open, closed $first then $second (expected 200, 200, $expected)"
	fi
	log "gateway $variant ready on port ${PORT[$variant]}"
}

# Scripts run by the Redis of gateway $1.
redis_script_calls() {
	redis-cli -p "${REDIS_PORT[$1]}" info commandstats |
		awk -F'[:=,]' '/^cmdstat_(evalsha|eval|evalsha_ro|eval_ro):/ { calls += $3 } END { print calls + 0 }'
}

# Round trips to Redis counted by hybrid gateway $1's store itself: one per sync batch,
# one per lease fetched on a request.
hybrid_remote_calls() {
	curl -s "http://127.0.0.1:${PORT[$1]}/actuator/health/ratelimit" |
		grep -o '"remoteCalls":[0-9]*' | cut -d: -f2
}

# run_wrk VARIANT SCRIPT SECONDS OUTFILE
run_wrk() {
	wrk -t1 -c"$CONNECTIONS" -d"$3s" --latency -s "$FILES/$2" "http://127.0.0.1:${PORT[$1]}" >"$4" 2>&1 ||
		fail "wrk against $1 failed: $(cat "$4")"
}

# measure ROUND WORKLOAD SCRIPT VARIANT
measure() {
	local round=$1 workload=$2 script=$3 variant=$4 out calls_before=0 calls_after=0 redis_calls="" cpu_before cpu_after
	out="$WORK/runs/$round-$workload-$variant.txt"
	case $variant in
		rl-redis* | scg-redis) calls_before=$(redis_script_calls "$variant") ;;
		rl-hybrid*) calls_before=$(hybrid_remote_calls "$variant") ;;
	esac
	cpu_before=$(cpu_ticks "${PID[$variant]}")
	run_wrk "$variant" "$script" "$DURATION" "$out"
	cpu_after=$(cpu_ticks "${PID[$variant]}")
	case $variant in
		rl-redis* | scg-redis) calls_after=$(redis_script_calls "$variant") ;;
		rl-hybrid*) calls_after=$(hybrid_remote_calls "$variant") ;;
	esac
	local requests rps p50 p99 non2xx cpu_us
	requests=$(awk '/requests in/ { print $1 }' "$out")
	cpu_us=$(awk -v ticks=$((cpu_after - cpu_before)) -v hz="$CLOCK_TICKS" -v n="$requests" \
		'BEGIN { printf "%.1f", ticks * 1000000 / hz / n }')
	rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
	p50=$(latency_ms 50% "$out")
	p99=$(latency_ms 99% "$out")
	non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $5 }' "$out")
	case $variant in
		rl-redis* | scg-redis | rl-hybrid*) redis_calls=$((calls_after - calls_before)) ;;
	esac
	echo "$round,$workload,$variant,$requests,$rps,$p50,$p99,${non2xx:-0},$redis_calls,$cpu_us" >>"$WORK/e2e-runs.csv"
	log "round $round $workload $variant: $rps req/s, p50 ${p50}ms, p99 ${p99}ms, non-2xx ${non2xx:-0}," \
		"gateway CPU ${cpu_us} µs per request (load $(cut -d' ' -f1 /proc/loadavg))"
}

# One warm-up pass of gateway $1 (settle's LOAD): each of its workloads for SETTLE seconds.
settle_load() {
	run_wrk "$1" one-key.lua "$SETTLE" "$WORK/runs/settle-$1-one.txt"
	run_wrk "$1" half.lua "$SETTLE" "$WORK/runs/settle-$1-half.txt"
	if [[ " ${MANY_KEY_VARIANTS[*]} " == *" $1 "* ]]; then
		run_wrk "$1" many-keys.lua "$SETTLE" "$WORK/runs/settle-$1-many.txt"
	fi
}

# The profile's warm-up pass: only the open route, since its many clients' buckets are
# counted later.
settle_one_key() {
	run_wrk "$1" one-key.lua "$SETTLE" "$WORK/runs/settle-$1-one.txt"
}

prefill_many_keys() {
	log "creating the $MANY_KEYS clients' buckets on $1"
	local created=0 answered
	while ((created < MANY_KEYS)); do
		wrk -t1 -c"$CONNECTIONS" -d3s -s "$FILES/prefill.lua" "http://127.0.0.1:${PORT[$1]}" -- "$created" \
			>"$WORK/runs/prefill-$1.txt" 2>&1 || fail "prefill of $1 failed: $(cat "$WORK/runs/prefill-$1.txt")"
		answered=$(awk '/requests in/ { print $1 }' "$WORK/runs/prefill-$1.txt")
		((answered > 0)) || fail "prefill of $1 made no progress: $(cat "$WORK/runs/prefill-$1.txt")"
		created=$((created + answered))
	done
}

compare() {
	local i=0 variant
	for variant in "${VARIANTS[@]}"; do
		start_gateway "$variant" "$i"
		i=$((i + 1))
	done
	for variant in "${VARIANTS[@]}"; do
		check_gateway "$variant"
	done
	mkdir -p "$WORK/runs"
	echo "round,workload,gateway,requests,requests_per_second,p50_ms,p99_ms,non_2xx,redis_calls,gateway_cpu_us_per_request" \
		>"$WORK/e2e-runs.csv"
	log "warming up every gateway on every workload (${WARMUP}s each)"
	for variant in "${VARIANTS[@]}"; do
		run_wrk "$variant" one-key.lua "$WARMUP" "$WORK/runs/warmup-$variant-one.txt"
		run_wrk "$variant" half.lua "$WARMUP" "$WORK/runs/warmup-$variant-half.txt"
	done
	for variant in "${MANY_KEY_VARIANTS[@]}"; do
		prefill_many_keys "$variant"
		run_wrk "$variant" many-keys.lua "$WARMUP" "$WORK/runs/warmup-$variant-many.txt"
	done
	settle "$SETTLE_PASSES" settle_load "${VARIANTS[@]}"
	local round
	for round in $(seq "$ROUNDS"); do
		for variant in $(round_order "$round" "${VARIANTS[@]}"); do
			measure "$round" one-key one-key.lua "$variant"
		done
		for variant in $(round_order "$round" "${VARIANTS[@]}"); do
			measure "$round" half-rejected half.lua "$variant"
		done
		for variant in $(round_order "$round" "${MANY_KEY_VARIANTS[@]}"); do
			measure "$round" 200k-keys many-keys.lua "$variant"
		done
	done
	java -cp "$CLASSPATH_ALL" -Dbench.output="$OUTPUT" dev.ratelimit.bench.e2e.E2eReport "$WORK/e2e-runs.csv" \
		"$DURATION" "$ROUNDS" "$CONNECTIONS"
}

# JFR recordings of one gateway's open route under one client and under 200,000, and the
# live heap per client (class histograms before and after creating their buckets).
profile() {
	local gateway=$1
	start_gateway "$gateway" 1
	check_gateway "$gateway"
	local pid=${PID[$gateway]} seconds=$((DURATION * 2)) dir="$WORK/profile-$gateway"
	mkdir -p "$WORK/runs" "$dir"
	log "warming up"
	run_wrk "$gateway" one-key.lua $((WARMUP * 2)) "$WORK/runs/profile-warmup.txt"
	settle "$SETTLE_PASSES" settle_one_key "$gateway"
	jcmd "$pid" JFR.start name=one-key settings=profile >/dev/null
	run_wrk "$gateway" one-key.lua "$seconds" "$dir/one-key-wrk.txt"
	jcmd "$pid" JFR.stop name=one-key filename="$dir/one-key.jfr" >/dev/null
	jcmd "$pid" GC.class_histogram >"$dir/histogram-before.txt"
	prefill_many_keys "$gateway"
	jcmd "$pid" GC.class_histogram >"$dir/histogram-after.txt"
	jcmd "$pid" JFR.start name=many-keys settings=profile >/dev/null
	run_wrk "$gateway" many-keys.lua "$seconds" "$dir/many-keys-wrk.txt"
	jcmd "$pid" JFR.stop name=many-keys filename="$dir/many-keys.jfr" >/dev/null
	java -cp "$CLASSPATH_ALL" -Dbench.output="$OUTPUT" dev.ratelimit.bench.e2e.ProfileReport "$dir" \
		"$MANY_KEYS" "profile-$gateway.md"
}

mkdir -p "$WORK"
install_missing wrk nginx-light redis-server
build
start_nginx "$UPSTREAM_PORT"
case $MODE in
	compare) compare ;;
	--profile) profile "$PROFILED" ;;
	*) fail "unknown mode $MODE (expected no argument, or --profile and a gateway)" ;;
esac
