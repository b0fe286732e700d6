#!/usr/bin/env bash
# What one decision costs inside Redis (docs/benchmarks.md, section 4): the script
# BucketScript takes for an acquire on a tier of one limit (the algorithm's lean script),
# for each algorithm, against Spring Cloud Gateway's
# request_rate_limiter.lua (RedisRateLimiter's script, read from the
# spring-cloud-gateway-server-webflux jar this module builds with). Each is called on one
# hot bucket that admits every call (so each call writes; the sliding window log also at
# the sizes dev.ratelimit.store.redis.ScriptCostCalls names, and full), with redis-benchmark
# (EVALSHA, SCRIPT_COST_CALLS calls from SCRIPT_COST_CLIENTS connections) against a
# throwaway redis-server; the cost is Redis's own time per call, INFO commandstats'
# usec_per_call for EVALSHA, the network and the client excluded; a shared call
# (<algorithm>-shared-<n>: n requests of one bucket judged in one call) also per decision.
# Rounds alternate the
# scripts so that drift hits all alike; the table gives each one's median, and its ratio to
# RedisRateLimiter's median.
#
# Usage (from anywhere): ratelimit-autoconfigure/src/bench/redis-script-cost.sh
# Environment: SCRIPT_COST_ROUNDS (5), SCRIPT_COST_CALLS (50000), SCRIPT_COST_CLIENTS (16),
# SCRIPT_COST_OUTPUT (docs/benchmarks; writes redis-script-cost.md and .csv there),
# SCRIPT_COST_COMPARE ("label=directory ...": more scripts to measure in the same rounds,
# each directory as dev.ratelimit.store.redis.ScriptCostCalls writes it, for example the
# target/redis-script-cost/ours a run of this script left in another checkout or commit,
# so that a before and an after are measured under the same conditions),
# SCRIPT_COST_GENERIC (1: also every call through the generic script, as a tier of
# several limits takes it and as the calls took it before the lean scripts),
# SCRIPT_COST_INCLUDE (an extended regular expression: only the calls whose name
# matches, for example '^(token-bucket|fixed-window)'), SCRIPT_COST_MEASURE (time, the default; or instructions: Redis runs under valgrind's
# callgrind, and each call's cost is the instructions Redis executed for it, its
# networking included, which other processes on a busy machine do not change: the same
# figure in every round; SCRIPT_COST_CALLS then defaults to 5000, for valgrind is slow),
# SCRIPT_COST_DUMPS (a directory, with instructions: each measured call's callgrind dump
# is kept there as ROUND-CONTENDER-CALL.callgrind, for callgrind_annotate to say where a
# script's instructions go).
# Wrap it in `flock /tmp/bench.lock` on a shared machine.
set -euo pipefail

MODULE=$(cd "$(dirname "$0")/../.." && pwd)
ROOT=$(dirname "$MODULE")
WORK=$MODULE/target/redis-script-cost
OUTPUT=${SCRIPT_COST_OUTPUT:-$ROOT/docs/benchmarks}
ROUNDS=${SCRIPT_COST_ROUNDS:-5}
MEASURE=${SCRIPT_COST_MEASURE:-time}
case $MEASURE in
	time) CALLS=${SCRIPT_COST_CALLS:-50000} ;;
	instructions) CALLS=${SCRIPT_COST_CALLS:-5000} ;;
	*) echo "SCRIPT_COST_MEASURE must be time or instructions, was $MEASURE" >&2; exit 1 ;;
esac
CLIENTS=${SCRIPT_COST_CLIENTS:-16}
DUMPS=${SCRIPT_COST_DUMPS:-}
if [[ -n $DUMPS ]]; then
	[[ $MEASURE == instructions ]] || { echo "SCRIPT_COST_DUMPS needs SCRIPT_COST_MEASURE=instructions" >&2; exit 1; }
	mkdir -p "$DUMPS"
fi
REDIS_PID=""

log() {
	echo "[script-cost $(date +%H:%M:%S)] $*" >&2
}

fail() {
	log "FAILED: $*"
	exit 1
}

stop_redis() {
	if [[ -n $REDIS_PID ]]; then
		kill "$REDIS_PID" 2>/dev/null || true
		wait "$REDIS_PID" 2>/dev/null || true
	fi
}
trap stop_redis EXIT

command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
	fail "redis-server and redis-benchmark are needed (Debian: apt-get install redis-server redis-tools)"
[[ $MEASURE == time ]] || command -v callgrind_control >/dev/null ||
	fail "valgrind is needed to count instructions (Debian: apt-get install valgrind)"

rm -rf "$WORK"
mkdir -p "$WORK/ours" "$WORK/scg" "$OUTPUT"

log "building the module and the bench tools"
(cd "$ROOT" && ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure compile)
CLASSPATH_ALL="$MODULE/target/bench-classes:$MODULE/target/classes:$(cat "$MODULE/target/bench-classpath.txt")"
java -cp "$CLASSPATH_ALL" dev.ratelimit.store.redis.ScriptCostCalls "$WORK/ours"
if [[ ${SCRIPT_COST_GENERIC:-0} == 1 ]]; then
	java -cp "$CLASSPATH_ALL" dev.ratelimit.store.redis.ScriptCostCalls "$WORK/generic" generic
fi

# RedisRateLimiter's own script and its call: keys {id}.tokens and {id}.timestamp; rate,
# capacity, no time (the script reads Redis TIME), one token; as generous as ours.
SCG_JAR=$(tr ':' '\n' <"$MODULE/target/bench-classpath.txt" | grep '/spring-cloud-gateway-server-webflux-[^/]*\.jar$' | head -1)
[[ -n $SCG_JAR ]] || fail "spring-cloud-gateway-server-webflux is not on the module's classpath"
unzip -p "$SCG_JAR" META-INF/scripts/request_rate_limiter.lua >"$WORK/scg/script.lua"
SCG_VERSION=$(basename "$SCG_JAR" .jar)
SCG_VERSION=${SCG_VERSION#spring-cloud-gateway-server-webflux-}
printf 'token-bucket\0372\037request_rate_limiter.{203.0.113.7}.tokens\037request_rate_limiter.{203.0.113.7}.timestamp\0371000000\0371000000\037\0371\n' \
	>"$WORK/scg/calls.tsv"

# label, directory; ours first, RedisRateLimiter last.
CONTENDERS=("RateLimit=$WORK/ours")
if [[ ${SCRIPT_COST_GENERIC:-0} == 1 ]]; then
	CONTENDERS+=("RateLimit generic script=$WORK/generic")
fi
read -r -a EXTRA <<<"${SCRIPT_COST_COMPARE:-}"
CONTENDERS+=("${EXTRA[@]}")
CONTENDERS+=("RedisRateLimiter $SCG_VERSION=$WORK/scg")

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
REDIS=(redis-server --bind 127.0.0.1 --port "$PORT" --save '' --appendonly no --daemonize no)
if [[ $MEASURE == instructions ]]; then
	REDIS=(valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$WORK/callgrind.out" "${REDIS[@]}")
fi
"${REDIS[@]}" >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 300); do
	redis-cli -p "$PORT" ping >/dev/null 2>&1 && break
	sleep 0.1
done
redis-cli -p "$PORT" ping >/dev/null 2>&1 || fail "redis-server did not start (see $WORK/redis.log)"
REDIS_VERSION=$(redis-cli -p "$PORT" info server | tr -d '\r' | sed -n 's/^redis_version://p')

# Each call's script: script-<call>.lua where the directory has one (a call that takes a
# lean script), script.lua otherwise; a directory from before lean scripts has only
# script.lua.
script_of() {
	if [[ -f $1/script-$2.lua ]]; then echo "$1/script-$2.lua"; else echo "$1/script.lua"; fi
}

declare -A SHA
for contender in "${CONTENDERS[@]}"; do
	dir=${contender#*=}
	[[ -f $dir/script.lua && -f $dir/calls.tsv ]] || fail "$dir lacks script.lua or calls.tsv"
	for script in "$dir"/script*.lua; do
		SHA[$script]=$(redis-cli -p "$PORT" -x script load <"$script" | tr -d '\r')
		[[ ${SHA[$script]} =~ ^[0-9a-f]{40}$ ]] || fail "Redis refused $script: ${SHA[$script]}"
	done
done

# measure SCRIPT CALL-ARGUMENTS...: microseconds (or instructions) per EVALSHA, on a
# fresh keyspace.
measure() {
	local script=$1
	shift
	redis-cli -p "$PORT" flushall >/dev/null
	redis-cli -p "$PORT" config resetstat >/dev/null
	[[ $MEASURE == time ]] || callgrind_control -z "$REDIS_PID" >/dev/null 2>&1
	redis-benchmark -p "$PORT" -n "$CALLS" -c "$CLIENTS" -q EVALSHA "${SHA[$script]}" "$@" >/dev/null
	local dumped
	if [[ $MEASURE == instructions ]]; then
		rm -f "$WORK"/callgrind.out.*
		callgrind_control -d "$REDIS_PID" >/dev/null 2>&1
		dumped=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$WORK"/callgrind.out.*)
		[[ -z $DUMPS ]] || cp "$WORK"/callgrind.out.* "$DUMPS/$DUMP_AS.callgrind"
		[[ $dumped =~ ^[0-9]+$ ]] || fail "callgrind dumped no total for $script"
	fi
	local stats
	stats=$(redis-cli -p "$PORT" info commandstats | tr -d '\r' | grep '^cmdstat_evalsha:') ||
		fail "no EVALSHA was counted for $script"
	# A call that failed (a Lua error) would be counted apart, and measure nothing.
	[[ $stats =~ failed_calls=0 || ! $stats =~ failed_calls= ]] || fail "EVALSHA failed in $script: $stats"
	[[ $stats =~ calls=$CALLS, ]] || fail "expected $CALLS calls in $script: $stats"
	if [[ $MEASURE == instructions ]]; then
		echo $((dumped / CALLS))
	else
		sed -n 's/.*usec_per_call=\([0-9.]*\).*/\1/p' <<<"$stats"
	fi
}

RUNS=$WORK/runs.csv
echo "round,script,algorithm,cost_per_call" >"$RUNS"
UNIT=$([[ $MEASURE == time ]] && echo µs || echo instructions)
log "redis $REDIS_VERSION on port $PORT; $ROUNDS rounds of $CALLS calls from $CLIENTS clients per script"
for round in $(seq "$ROUNDS"); do
	for contender in "${CONTENDERS[@]}"; do
		label=${contender%%=*}
		dir=${contender#*=}
		while IFS=$'\x1f' read -r -a call; do
			[[ ${call[0]} =~ ${SCRIPT_COST_INCLUDE:-.} ]] || continue
			DUMP_AS="$round-${label//[^A-Za-z0-9.-]/_}-${call[0]}"
			cost=$(measure "$(script_of "$dir" "${call[0]}")" "${call[@]:1}")
			echo "$round,$label,${call[0]},$cost" >>"$RUNS"
			log "round $round: $label, ${call[0]}: $cost $UNIT"
		done <"$dir/calls.tsv"
	done
done

# Medians per script and algorithm, in the contenders' order; ratios to RedisRateLimiter.
python3 - "$RUNS" "$OUTPUT" "$REDIS_VERSION" "$ROUNDS" "$CALLS" "$CLIENTS" "$(uptime | sed 's/.*load average: //')" "$MEASURE" <<'PYTHON'
import csv, re, statistics, sys
runs, output, redis_version, rounds, calls, clients, load, measure = sys.argv[1:]
timed = measure == "time"
name = "redis-script-cost" if timed else "redis-script-instructions"
unit, column, digits = ("µs", "usec", 2) if timed else ("instructions", "instructions", 0)
rows = list(csv.DictReader(open(runs)))
order = []
for row in rows:
	if (row["script"], row["algorithm"]) not in order:
		order.append((row["script"], row["algorithm"]))
spread = {key: [float(r["cost_per_call"]) for r in rows if (r["script"], r["algorithm"]) == key] for key in order}
median = {key: statistics.median(spread[key]) for key in order}
scg = [key for key in order if key[0].startswith("RedisRateLimiter")][0]
def decisions(key):
	shared = re.search(r"-shared-(\d+)$", key[1])
	return int(shared.group(1)) if shared else 1
per_decision = {key: median[key] / decisions(key) for key in order}
def figure(value):
	return f"{value:,.{digits}f}"
with open(f"{output}/{name}.csv", "w") as out:
	out.write(f"script,algorithm,median_{column}_per_call,ratio_to_redis_rate_limiter,{column}_per_decision,"
			f"decision_ratio_to_redis_rate_limiter,rounds_{column}\n")
	for key in order:
		out.write(f"{key[0]},{key[1]},{median[key]:.{digits}f},{median[key] / median[scg]:.2f},"
				f"{per_decision[key]:.{digits}f},{per_decision[key] / median[scg]:.2f},"
				+ " ".join(f"{v:.{digits}f}" for v in spread[key]) + "\n")
with open(f"{output}/{name}.md", "w") as out:
	what = ("Redis's own time per call (INFO commandstats)" if timed
			else "the instructions Redis executed per call, its networking included (valgrind's callgrind)")
	out.write(f"Redis {redis_version}, {rounds} rounds of {calls} EVALSHA calls from {clients} clients per "
			f"script (redis-benchmark), one hot bucket, every call admitted (but sliding-window-log-full-1000's "
			f"after its first 1,000); {what}; load average at the end {load}.\n\n")
	out.write(f"| script | algorithm | {unit} per call (median) | ÷ RedisRateLimiter | {unit} per decision | "
			f"÷ RedisRateLimiter | rounds ({unit} per call) |\n")
	out.write("| --- | --- | ---: | ---: | ---: | ---: | --- |\n")
	for key in order:
		out.write(f"| {key[0]} | {key[1]} | {figure(median[key])} | {median[key] / median[scg]:.2f}x | "
				f"{figure(per_decision[key])} | {per_decision[key] / median[scg]:.2f}x | "
				+ ", ".join(figure(v) for v in spread[key]) + " |\n")
print(open(f"{output}/{name}.md").read())
PYTHON
