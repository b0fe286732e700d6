#!/usr/bin/env bash
# Where a gateway's CPU goes, thread by thread (docs/benchmarks.md, section 11): gateways of
# bench-gateway.yml under wrk (one client on the open route, nothing rejected), each
# thread's user and system CPU time and context switches per request read from /proc
# before and after each measured run, summed by thread pool (the name without its
# number). A configuration is a profile of bench-gateway.yml with optional suffixes:
#
#   +lettuce-on-reactor   Lettuce's connections on Reactor Netty's event loops rather than
#                         its own (bench.lettuce-on-reactor, LettuceOnReactorLoops)
#   @N                    N Reactor Netty event loops (-Dreactor.netty.ioWorkerCount=N)
#                         rather than max(4, processors)
#
# Every configuration runs in a JVM of its own, with a Redis of its own when it needs one;
# all are started, warmed up until their JIT compilers are done (lib.sh, settle), then
# measured in rounds that alternate them (lib.sh, round_order).
#
# Usage (from anywhere): ratelimit-autoconfigure/src/bench/thread-cpu.sh
# Environment: THREAD_CPU_CONFIGS (default below), THREAD_CPU_ROUNDS (3),
# THREAD_CPU_DURATION (s per measured run, 15), THREAD_CPU_WARMUP (s, 40),
# THREAD_CPU_SETTLE (s per warm-up pass, 5), THREAD_CPU_SETTLE_PASSES (at most, 15),
# THREAD_CPU_CONNECTIONS (16), THREAD_CPU_BASE_PORT (31080),
# THREAD_CPU_OUTPUT (docs/benchmarks; writes thread-cpu.md and .csv there).
# Needs wrk, nginx-light and redis-server (installed with apt-get when missing).
set -euo pipefail

MODULE=$(cd "$(dirname "$0")/../.." && pwd)
ROOT=$(dirname "$MODULE")
FILES=$MODULE/src/bench/e2e
WORK=$MODULE/target/thread-cpu
OUTPUT=${THREAD_CPU_OUTPUT:-$ROOT/docs/benchmarks}
ROUNDS=${THREAD_CPU_ROUNDS:-3}
DURATION=${THREAD_CPU_DURATION:-15}
WARMUP=${THREAD_CPU_WARMUP:-40}
SETTLE=${THREAD_CPU_SETTLE:-5}
SETTLE_PASSES=${THREAD_CPU_SETTLE_PASSES:-15}
CONNECTIONS=${THREAD_CPU_CONNECTIONS:-16}
BASE_PORT=${THREAD_CPU_BASE_PORT:-31080}
UPSTREAM_PORT=$BASE_PORT
read -r -a CONFIGS <<<"${THREAD_CPU_CONFIGS:-none rl-redis rl-redis+lettuce-on-reactor scg-redis none@1 rl-redis@1 rl-redis+lettuce-on-reactor@1 scg-redis@1}"
for config in "${CONFIGS[@]}"; do
	[[ $config =~ ^(none|rl-caffeine|rl-redis|rl-hybrid|scg-redis|scg-bucket4j)(\+lettuce-on-reactor)?(@[1-9][0-9]*)?$ ]] ||
		{ echo "THREAD_CPU_CONFIGS: $config is not PROFILE[+lettuce-on-reactor][@LOOPS] with a profile of bench-gateway.yml" >&2; exit 1; }
	# Spring Data's shared connection, opened on an event loop by RedisRateLimiter, would wait
	# for that same loop (LettuceOnReactorLoops).
	[[ $config == scg-redis+lettuce-on-reactor* ]] &&
		{ echo "THREAD_CPU_CONFIGS: $config never answers: RedisRateLimiter opens Redis's connection on an event loop" >&2; exit 1; }
done

declare -A PORT
declare -A PID
declare -A REDIS_PORT
STARTED=()

# shellcheck source=lib.sh
source "$MODULE/src/bench/lib.sh"
LOG_NAME=thread-cpu
trap stop_all EXIT
install_missing wrk nginx-light redis-server

rm -rf "$WORK"
mkdir -p "$WORK/runs" "$OUTPUT"
log "building the gateway"
(cd "$ROOT" && ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure compile)
CLASSPATH_ALL="$MODULE/target/bench-classes:$MODULE/target/classes:$(cat "$MODULE/target/bench-classpath.txt")"

# start_gateway CONFIG INDEX
start_gateway() {
	local config=$1 port=$((BASE_PORT + 1 + $2)) profile options=() jvm=(-Xms1g -Xmx1g -XX:+UseG1GC)
	require_free_port "$port"
	PORT[$config]=$port
	profile=${config%%[+@]*}
	[[ $config == *+lettuce-on-reactor* ]] && options+=(--bench.lettuce-on-reactor=true)
	[[ $config == *@* ]] && jvm+=("-Dreactor.netty.ioWorkerCount=${config##*@}")
	case $profile in
		rl-redis | rl-hybrid | scg-redis) start_redis "$config" "$2" ;;
	esac
	java "${jvm[@]}" -cp "$CLASSPATH_ALL" dev.ratelimit.bench.e2e.BenchGatewayApplication \
		--spring.profiles.active="$profile" --bench.port="$port" --bench.redis-port="${REDIS_PORT[$config]:-0}" \
		--bench.upstream="http://127.0.0.1:$UPSTREAM_PORT" "${options[@]}" >"$WORK/gateway-$2.log" 2>&1 &
	PID[$config]=$!
	STARTED+=($!)
}

run_wrk() {
	wrk -t1 -c"$CONNECTIONS" -d"$2s" -s "$FILES/one-key.lua" "http://127.0.0.1:${PORT[$1]}" >"$3" 2>&1 ||
		fail "wrk against $1 failed: $(cat "$3")"
}

settle_load() {
	run_wrk "$1" "$SETTLE" "$WORK/runs/settle.txt"
}

# Per thread of JVM $1: pool, user and system ticks, voluntary and involuntary switches.
thread_snapshot() {
	local task
	for task in /proc/"$1"/task/*; do
		printf '%s %s %s %s\n' "$(basename "$task")" "$(tr ' ' '_' <"$task/comm" | sed 's/[-#_]*[0-9]*$//')" \
			"$(awk '{ print $14, $15 }' "$task/stat")" \
			"$(awk '/^(non)?voluntary_ctxt_switches/ { s = s " " $2 } END { print s }' "$task/status")"
	done | sort
}

# measure ROUND CONFIG: one row per thread pool in the CSV.
measure() {
	local round=$1 config=$2 before after out requests rps
	before="$WORK/runs/$round-$config.before"
	after="$WORK/runs/$round-$config.after"
	out="$WORK/runs/$round-$config.txt"
	thread_snapshot "${PID[$config]}" >"$before"
	run_wrk "$config" "$DURATION" "$out"
	thread_snapshot "${PID[$config]}" >"$after"
	requests=$(awk '/requests in/ { print $1 }' "$out")
	rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
	# Only threads alive at both snapshots are counted (join).
	join "$before" "$after" | awk -v round="$round" -v config="$config" -v n="$requests" -v rps="$rps" -v hz="$CLOCK_TICKS" '
		{ pool = $2; user[pool] += $8 - $3; sys[pool] += $9 - $4; switches[pool] += ($10 - $5) + ($11 - $6) }
		END { for (pool in user) if (user[pool] + sys[pool] > 0 || switches[pool] > 0)
			printf "%s,%s,%s,%s,%s,%.2f,%.2f,%.3f\n", round, config, n, rps, pool,
				user[pool] * 1e6 / hz / n, sys[pool] * 1e6 / hz / n, switches[pool] / n }' >>"$WORK/thread-cpu.csv"
	log "round $round $config: $rps req/s, $(awk -F, -v r="$round" -v c="$config" \
		'$1 == r && $2 == c { t += $6 + $7 } END { printf "%.1f", t }' "$WORK/thread-cpu.csv") µs of CPU per request"
}

report() {
	local csv="$OUTPUT/thread-cpu.csv" md="$OUTPUT/thread-cpu.md" config pool
	cp "$WORK/thread-cpu.csv" "$csv"
	{
		echo "# Gateway CPU per request, thread by thread"
		echo
		echo "\`ratelimit-autoconfigure/src/bench/thread-cpu.sh\`, $(date -u '+%d %B %Y, %H:%M UTC'): $ROUNDS rounds of" \
			"${DURATION} s, wrk -t1 -c$CONNECTIONS, one client on the open route; medians over the rounds."
		echo "Columns: requests per second, then CPU µs per request (user + system) and context switches per" \
			"request, in all and per thread pool. $SETTLED_IN."
		echo
		echo "| configuration | requests/s | CPU µs/request, all | switches/request | by pool: user + system µs (switches) |"
		echo "| --- | ---: | ---: | ---: | --- |"
		for config in "${CONFIGS[@]}"; do
			local rps total switches pools=""
			rps=$(awk -F, -v c="$config" '$2 == c && !seen[$1]++ { print $4 }' "$csv" | median)
			total=$(awk -F, -v c="$config" '$2 == c { t[$1] += $6 + $7 } END { for (r in t) print t[r] }' "$csv" | median)
			switches=$(awk -F, -v c="$config" '$2 == c { t[$1] += $8 } END { for (r in t) print t[r] }' "$csv" | median)
			for pool in $(awk -F, -v c="$config" '$2 == c && $6 + $7 >= 1 { print $5 }' "$csv" | sort -u); do
				pools+="$pool $(awk -F, -v c="$config" -v p="$pool" '$2 == c && $5 == p { print $6 }' "$csv" | median | xargs printf '%.0f')"
				pools+=" + $(awk -F, -v c="$config" -v p="$pool" '$2 == c && $5 == p { print $7 }' "$csv" | median | xargs printf '%.0f')"
				pools+=" ($(awk -F, -v c="$config" -v p="$pool" '$2 == c && $5 == p { print $8 }' "$csv" | median | xargs printf '%.2f')); "
			done
			printf '| %s | %.0f | %.1f | %.2f | %s |\n' "$config" "$rps" "$total" "$switches" "${pools%; }"
		done
	} >"$md"
	log "wrote $md and $csv"
}

echo "round,configuration,requests,requests_per_second,pool,user_us_per_request,system_us_per_request,switches_per_request" \
	>"$WORK/thread-cpu.csv"
start_nginx "$UPSTREAM_PORT"
for i in "${!CONFIGS[@]}"; do
	start_gateway "${CONFIGS[$i]}" "$i"
done
for i in "${!CONFIGS[@]}"; do
	wait_for "http://127.0.0.1:${PORT[${CONFIGS[$i]}]}/actuator/health/ping" \
		"gateway ${CONFIGS[$i]} (see $WORK/gateway-$i.log)"
	run_wrk "${CONFIGS[$i]}" "$WARMUP" "$WORK/runs/warmup.txt"
	log "gateway ${CONFIGS[$i]} warmed up"
done
settle "$SETTLE_PASSES" settle_load "${CONFIGS[@]}"
for round in $(seq "$ROUNDS"); do
	for config in $(round_order "$round" "${CONFIGS[@]}"); do
		measure "$round" "$config"
	done
done
report
