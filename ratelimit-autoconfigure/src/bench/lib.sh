# Shell helpers of the wrk benchmarks (e2e.sh, fleet-cost.sh, caffeine-keys.sh), sourced
# by each. The sourcing script sets, before using them:
#   LOG_NAME  the name its log lines start with
#   WORK      its working directory (nginx's pid file is $WORK/nginx/nginx.pid)
#   STARTED   an array of the background processes it started, stopped by stop_all
# and, for start_redis, BASE_PORT and the associative array REDIS_PORT.

log() {
	echo "[$LOG_NAME $(date +%H:%M:%S)] $*" >&2
}

fail() {
	log "FAILED: $*"
	exit 1
}

# Stops every process in STARTED and nginx, if started; a script traps it on EXIT.
stop_all() {
	local pid
	for pid in "${STARTED[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${STARTED[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	STARTED=()
	if [[ -f $WORK/nginx/nginx.pid ]]; then
		kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
		rm -f "$WORK/nginx/nginx.pid"
	fi
}

# install_missing PACKAGE...: the Debian packages among wrk, nginx-light and redis-server
# whose program is missing, installed with apt-get.
install_missing() {
	local missing=() package
	for package in "$@"; do
		case $package in
			wrk) command -v wrk >/dev/null || missing+=(wrk) ;;
			nginx-light) [[ -x /usr/sbin/nginx ]] || missing+=(nginx-light) ;;
			redis-server) command -v redis-server >/dev/null || missing+=(redis-server) ;;
			*) fail "install_missing knows no package $package" ;;
		esac
	done
	if ((${#missing[@]} > 0)); then
		log "installing ${missing[*]}"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
}

require_free_port() {
	if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
		fail "port $1 on 127.0.0.1 is in use; choose another base port"
	fi
}

# wait_for URL WHAT: until URL answers 2xx, two minutes at most.
wait_for() {
	local i
	for i in $(seq 600); do
		curl -sf -o /dev/null "$1" && return 0
		sleep 0.2
	done
	fail "$2 did not answer $1"
}

# start_redis NAME INDEX: a Redis of its own for the INDEX-th gateway, NAME, on port
# BASE_PORT + 101 + INDEX (100 above the gateway's), so that no gateway's background calls
# (the hybrid store's syncs) count against, or slow down, another; its port in REDIS_PORT.
start_redis() {
	local port=$((BASE_PORT + 101 + $2))
	require_free_port "$port"
	REDIS_PORT[$1]=$port
	redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --daemonize no \
		>"$WORK/redis-$1.log" 2>&1 &
	STARTED+=($!)
	local i
	for i in $(seq 50); do
		redis-cli -p "$port" ping >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	fail "redis-server did not start (see $WORK/redis-$1.log)"
}

# start_nginx PORT: the upstream (src/bench/e2e/nginx.conf) on 127.0.0.1:PORT, its files
# in $WORK/nginx.
start_nginx() {
	require_free_port "$1"
	mkdir -p "$WORK/nginx/tmp"
	sed -e "s|__PORT__|$1|" -e "s|__DIR__|$WORK/nginx|" "$(dirname "${BASH_SOURCE[0]}")/e2e/nginx.conf" \
		>"$WORK/nginx/nginx.conf"
	/usr/sbin/nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log"
	wait_for "http://127.0.0.1:$1/" "nginx"
}

# Clock ticks a second, the unit of /proc's CPU times.
CLOCK_TICKS=$(getconf CLK_TCK)

# CPU time the process $1 has used, user and system, in clock ticks.
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# Time JVM $1's JIT compilers have spent compiling so far, in milliseconds (jstat -compiler).
compile_ms() {
	local seconds
	seconds=$(jstat -compiler "$1" 2>/dev/null | awk 'NR == 2 { print $4 }')
	[[ -n $seconds ]] || fail "jstat could not read the compilation time of JVM $1"
	awk -v s="$seconds" 'BEGIN { printf "%d", s * 1000 }'
}

# settle PASSES LOAD NAME...: warms the gateways NAME (their JVMs in PID) until their JIT
# compilers are done. A pass runs the caller's function `LOAD NAME` for each in turn and
# measures how long that JVM compiled meanwhile; the first pass in which every one compiled
# for under 5 % of its load's time ends the warm-up (SETTLED_IN says which, for a report's
# caption), and none in PASSES fails the run. A fixed warm-up is not enough on 2 cores: a
# Redis gateway's one C2 thread, busy through all of its warm-up, compiled again through
# its first measured runs, at up to a core.
settle() {
	local passes=$1 load=$2 pass name start compiled elapsed busy
	shift 2
	for ((pass = 1; pass <= passes; pass++)); do
		busy=()
		for name in "$@"; do
			compiled=$(compile_ms "${PID[$name]}")
			start=$(date +%s%N)
			"$load" "$name"
			elapsed=$((($(date +%s%N) - start) / 1000000))
			compiled=$(($(compile_ms "${PID[$name]}") - compiled))
			((compiled * 20 < elapsed)) || busy+=("$name (${compiled} of ${elapsed} ms)")
		done
		if ((${#busy[@]} == 0)); then
			SETTLED_IN="settled in pass $pass"
			log "every gateway's JIT compiler $SETTLED_IN"
			return 0
		fi
		log "warm-up pass $pass: still compiling: ${busy[*]}"
	done
	fail "JIT compilers still busy after $passes warm-up passes: ${busy[*]}; allow more passes"
}

# Latency in milliseconds from wrk's "99%    1.23ms" form: latency_ms PERCENTILE FILE.
latency_ms() {
	awk -v p="$1" '$1 == p { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 }
		else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }
		print v }' "$2"
}

# round_order ROUND ITEM...: round r starts at the r-th item (cyclically) and runs
# forwards in odd rounds, backwards in even ones, so first places and neighbours change
# from round to round (with an even number of items, over as many rounds, each runs
# once in every position).
round_order() {
	local round=$1
	shift
	local count=$# step=1 i
	((round % 2 == 0)) && step=-1
	for ((i = 0; i < count; i++)); do
		echo "${@:$((((round - 1 + step * i) % count + count) % count + 1)):1}"
	done
}

# The median of the numbers on standard input, one a line.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
