#!/usr/bin/env bash
# RateLimit on Caffeine over many keys (docs/benchmarks.md, "Caffeine over 200,000 keys"):
# one gateway JVM serving two routes to one nginx upstream (profile caffeine-keys of
# src/bench/resources/bench-gateway.yml): /open/**, without a limiter, the control, and
# /windowed/**, limited per X-Client header by a sliding window counter that never
# refuses within a run. wrk draws 200,000 clients at random (e2e/many-keys.lua), every
# client's bucket created beforehand; or, with KEYS_CLIENTS=1, sends one client
# (e2e/one-key.lua) to the same gateway (the 200,000 buckets created all the same), to tell
# what the filter costs from what the many keys cost. After a warm-up of both routes, then
# passes of both until the JIT compilers are done (lib.sh, settle), rounds alternate
# the routes (and the gateways, when comparing builds): each round starts one run later
# than the round before and every second round runs backwards, so that no route always
# runs first or right after the same one. Per round: the limited route's requests per
# second as a share of the control's on the same JVM, and each route's gateway CPU time
# per request (the JVM's own threads, from /proc), which other processes on a busy
# machine disturb less than throughput.
#
# Usage (from anywhere):
#   ratelimit-autoconfigure/src/bench/caffeine-keys.sh            # the rounds, writes docs/benchmarks/caffeine-keys.*
#   ratelimit-autoconfigure/src/bench/caffeine-keys.sh --profile  # after the warm-up, a JFR recording of each
#                                   # route (2 x KEYS_DURATION s), summarised in caffeine-keys-profile.md
# Environment: KEYS_DURATION (s per measured run, 10), KEYS_WARMUP (s per route, 20),
# KEYS_SETTLE (s per route and warm-up pass, 5), KEYS_SETTLE_PASSES (at most, 10),
# KEYS_ROUNDS (6), KEYS_CLIENTS (200000, or 1), KEYS_CONNECTIONS (64), KEYS_BASE_PORT (30080),
# KEYS_OUTPUT (docs/benchmarks; writes caffeine-keys.md, .csv and .png there), KEYS_COMPARE (more
# gateways in the same rounds, built from other main classes, as label=directory pairs: a
# directory is another build's ratelimit-autoconfigure/target/classes, run with this build's
# bench classes and libraries), KEYS_UNOBSERVED (1: one more gateway, this build with its
# decisions not observed, management.observations.enable.ratelimit=false: what observing
# them costs).
# Needs wrk and nginx-light (installed with apt-get when missing). Every process it starts
# listens on 127.0.0.1 only and is stopped on exit.
set -euo pipefail

MODE=${1:-compare}
[[ $MODE == compare || $MODE == --profile ]] || { echo "unknown mode $MODE (expected none or --profile)" >&2; exit 1; }
MODULE=$(cd "$(dirname "$0")/../.." && pwd)
ROOT=$(dirname "$MODULE")
FILES=$MODULE/src/bench/e2e
WORK=$MODULE/target/caffeine-keys
OUTPUT=${KEYS_OUTPUT:-$ROOT/docs/benchmarks}
DURATION=${KEYS_DURATION:-10}
WARMUP=${KEYS_WARMUP:-20}
SETTLE=${KEYS_SETTLE:-5}
SETTLE_PASSES=${KEYS_SETTLE_PASSES:-10}
ROUNDS=${KEYS_ROUNDS:-6}
CONNECTIONS=${KEYS_CONNECTIONS:-64}
BASE_PORT=${KEYS_BASE_PORT:-30080}
read -r -a COMPARE <<<"${KEYS_COMPARE:-}"
UPSTREAM_PORT=$BASE_PORT
MANY_KEYS=200000
CLIENTS=${KEYS_CLIENTS:-$MANY_KEYS}
case $CLIENTS in
	"$MANY_KEYS") SCRIPT=$FILES/many-keys.lua ;;
	1) SCRIPT=$FILES/one-key.lua ;;
	*) echo "KEYS_CLIENTS must be $MANY_KEYS or 1, not $CLIENTS" >&2; exit 1 ;;
esac
ROUTES=(open windowed)
STARTED=()
declare -A CLASSES
declare -A PORT
declare -A PID

# shellcheck source=lib.sh
source "$MODULE/src/bench/lib.sh"
LOG_NAME=caffeine-keys
trap stop_all EXIT
install_missing wrk nginx-light

rm -rf "$WORK"
mkdir -p "$WORK/runs" "$OUTPUT"
log "building the gateway"
(cd "$ROOT" && ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure compile)
LIBRARIES=$(cat "$MODULE/target/bench-classpath.txt")
GATEWAYS=(this)
CLASSES[this]=$MODULE/target/classes
declare -A ARGUMENTS
if [[ ${KEYS_UNOBSERVED:-0} == 1 && $MODE == compare ]]; then
	GATEWAYS+=(unobserved)
	CLASSES[unobserved]=$MODULE/target/classes
	ARGUMENTS[unobserved]=--management.observations.enable.ratelimit=false
fi
[[ $MODE == --profile ]] && COMPARE=()
for pair in "${COMPARE[@]}"; do
	[[ $pair == *=* && -d ${pair#*=} ]] || fail "KEYS_COMPARE: $pair is not label=directory"
	GATEWAYS+=("${pair%%=*}")
	CLASSES[${pair%%=*}]=${pair#*=}
done

start_nginx "$UPSTREAM_PORT"
index=1
for gateway in "${GATEWAYS[@]}"; do
	PORT[$gateway]=$((BASE_PORT + index))
	require_free_port "${PORT[$gateway]}"
	java -Xms1g -Xmx1g -XX:+UseG1GC -cp "$MODULE/target/bench-classes:${CLASSES[$gateway]}:$LIBRARIES" \
		dev.ratelimit.bench.e2e.BenchGatewayApplication --spring.profiles.active=caffeine-keys \
		--bench.port="${PORT[$gateway]}" --bench.upstream="http://127.0.0.1:$UPSTREAM_PORT" \
		${ARGUMENTS[$gateway]:-} >"$WORK/gateway-$gateway.log" 2>&1 &
	PID[$gateway]=$!
	STARTED+=($!)
	index=$((index + 1))
done

# The limited route limits: its headers say so. Then every client's bucket is created.
for gateway in "${GATEWAYS[@]}"; do
	base="http://127.0.0.1:${PORT[$gateway]}"
	wait_for "$base/actuator/health/ping" "gateway $gateway (see $WORK/gateway-$gateway.log)"
	curl -s -D - -o /dev/null -H 'X-Client: check' "$base/windowed/item" | grep -qi '^ratelimit' ||
		fail "gateway $gateway's /windowed route wrote no rate limit headers"
	# Also with one client: the same cache, and the same warm-up of the JVM.
	log "creating the $MANY_KEYS clients' buckets on gateway $gateway"
	created=0
	while ((created < MANY_KEYS)); do
		wrk -t1 -c"$CONNECTIONS" -d3s -s "$FILES/prefill.lua" "$base" -- "$created" /windowed/item \
			>"$WORK/runs/prefill-$gateway.txt" 2>&1 || fail "prefill failed: $(cat "$WORK/runs/prefill-$gateway.txt")"
		answered=$(awk '/requests in/ { print $1 }' "$WORK/runs/prefill-$gateway.txt")
		((answered > 0)) || fail "prefill made no progress: $(cat "$WORK/runs/prefill-$gateway.txt")"
		created=$((created + answered))
	done
	for route in "${ROUTES[@]}"; do
		wrk -t1 -c"$CONNECTIONS" -d"${WARMUP}s" -s "$SCRIPT" "$base" -- "/$route/item" \
			>"$WORK/runs/warmup-$gateway-$route.txt" 2>&1 || fail "warm-up failed"
	done
done

# One warm-up pass of gateway $1 (settle's LOAD): each route for SETTLE seconds.
settle_load() {
	local route
	for route in "${ROUTES[@]}"; do
		wrk -t1 -c"$CONNECTIONS" -d"${SETTLE}s" -s "$SCRIPT" "http://127.0.0.1:${PORT[$1]}" -- "/$route/item" \
			>"$WORK/runs/settle-$1-$route.txt" 2>&1 || fail "warm-up failed"
	done
}
settle "$SETTLE_PASSES" settle_load "${GATEWAYS[@]}"

# measure ROUND GATEWAY ROUTE
measure() {
	local round=$1 gateway=$2 route=$3 out="$WORK/runs/$1-$2-$3.txt" before after
	before=$(cpu_ticks "${PID[$gateway]}")
	wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$SCRIPT" \
		"http://127.0.0.1:${PORT[$gateway]}" -- "/$route/item" >"$out" 2>&1 || fail "wrk failed: $(cat "$out")"
	after=$(cpu_ticks "${PID[$gateway]}")
	local requests rps non2xx cpu_us load
	requests=$(awk '/requests in/ { print $1 }' "$out")
	rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
	non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $5 }' "$out")
	cpu_us=$(awk -v ticks=$((after - before)) -v hz="$CLOCK_TICKS" -v n="$requests" \
		'BEGIN { printf "%.1f", ticks * 1000000 / hz / n }')
	((${non2xx:-0} == 0)) || fail "$gateway /$route answered $non2xx requests with other than 2xx: nothing is refused here"
	load=$(cut -d' ' -f1 /proc/loadavg)
	echo "$round,$gateway,$route,$requests,$rps,$(latency_ms 50% "$out"),$(latency_ms 99% "$out"),${non2xx:-0},$cpu_us,$load" \
		>>"$WORK/caffeine-keys.csv"
	log "round $round $gateway /$route: $rps req/s, CPU $cpu_us µs per request, non-2xx ${non2xx:-0} (load $load)"
}

# field GATEWAY ROUTE ROUND COLUMN: one value of the runs' CSV.
field() {
	awk -F, -v g="$1" -v r="$2" -v n="$3" -v c="$4" '$1 == n && $2 == g && $3 == r { print $c }' "$WORK/caffeine-keys.csv"
}

report() {
	cp "$WORK/caffeine-keys.csv" "$OUTPUT/caffeine-keys.csv"
	{
		echo "One gateway JVM per build (-Xms1g -Xmx1g, G1), each serving /open/** without a limiter and /windowed/**" \
			"limited by a sliding window counter per X-Client, on the Caffeine store; $CLIENTS client(s) ($(basename "$SCRIPT"))," \
			"every bucket created beforehand; wrk -t1 -c$CONNECTIONS, ${WARMUP}s warm-up per route and passes of" \
			"${SETTLE}s until the JIT compilers were done ($SETTLED_IN), $ROUNDS rounds of" \
			"${DURATION}s runs, alternated. Load average $START_LOAD at the start, $END_LOAD at the end."
		echo
		echo "| gateway | limited ÷ control, requests/s, per round | median | limited ÷ control, CPU per request, per round | median | control requests/s (median) | control CPU µs per request (median) | limited CPU µs per request (median) |"
		echo "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: |"
		for gateway in "${GATEWAYS[@]}"; do
			ratios=() cpu_ratios=()
			for round in $(seq "$ROUNDS"); do
				ratios+=("$(awk -v a="$(field "$gateway" windowed "$round" 5)" -v b="$(field "$gateway" open "$round" 5)" \
					'BEGIN { printf "%.1f", 100 * a / b }')")
				cpu_ratios+=("$(awk -v a="$(field "$gateway" windowed "$round" 9)" -v b="$(field "$gateway" open "$round" 9)" \
					'BEGIN { printf "%.3f", a / b }')")
			done
			control_rps=$(for round in $(seq "$ROUNDS"); do field "$gateway" open "$round" 5; done | median)
			control_cpu=$(for round in $(seq "$ROUNDS"); do field "$gateway" open "$round" 9; done | median)
			limited_cpu=$(for round in $(seq "$ROUNDS"); do field "$gateway" windowed "$round" 9; done | median)
			echo "| $gateway | $(IFS=,; echo "${ratios[*]}" | sed 's/,/ %, /g') % | $(printf '%s\n' "${ratios[@]}" | median) % |" \
				"$(IFS=,; echo "${cpu_ratios[*]}" | sed 's/,/, /g') | $(printf '%s\n' "${cpu_ratios[@]}" | median)x |" \
				"$control_rps | $control_cpu | $limited_cpu |"
		done
	} >"$OUTPUT/caffeine-keys.md"
	cat "$OUTPUT/caffeine-keys.md"
	java -cp "$MODULE/target/bench-classes:$MODULE/target/classes:$LIBRARIES" -Dbench.output="$OUTPUT" \
		dev.ratelimit.bench.e2e.CaffeineKeysChart "$WORK/caffeine-keys.csv" caffeine-keys.png
	log "wrote $OUTPUT/caffeine-keys.md and caffeine-keys.png"
}

compare() {
	echo "round,gateway,route,requests,requests_per_second,p50_ms,p99_ms,non_2xx,gateway_cpu_us_per_request,load" \
		>"$WORK/caffeine-keys.csv"
	START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
	local runs=() gateway route round run
	for gateway in "${GATEWAYS[@]}"; do
		for route in "${ROUTES[@]}"; do
			runs+=("$gateway/$route")
		done
	done
	for round in $(seq "$ROUNDS"); do
		for run in $(round_order "$round" "${runs[@]}"); do
			measure "$round" "${run%/*}" "${run#*/}"
		done
	done
	END_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
	report
}

# A JFR recording of each route (settings=profile), summarised by ProfileReport.
profile() {
	local dir=$WORK/profile route
	mkdir -p "$dir"
	for route in "${ROUTES[@]}"; do
		jcmd "${PID[this]}" JFR.start name="$route" settings=profile >/dev/null
		wrk -t1 -c"$CONNECTIONS" -d$((DURATION * 2))s -s "$SCRIPT" "http://127.0.0.1:${PORT[this]}" \
			-- "/$route/item" >"$dir/$route-wrk.txt" 2>&1 || fail "wrk failed: $(cat "$dir/$route-wrk.txt")"
		jcmd "${PID[this]}" JFR.stop name="$route" filename="$dir/$route.jfr" >/dev/null
	done
	java -cp "$MODULE/target/bench-classes:$MODULE/target/classes:$LIBRARIES" -Dbench.output="$OUTPUT" \
		dev.ratelimit.bench.e2e.ProfileReport "$dir" "$CLIENTS" caffeine-keys-profile.md "${ROUTES[@]}" >/dev/null
	log "wrote $OUTPUT/caffeine-keys-profile.md (recordings in $dir)"
}

case $MODE in
	compare) compare ;;
	--profile) profile ;;
esac
