#!/usr/bin/env bash
# Sustained load on the sample gateway, outside the test suite: hundreds of keep-alive
# connections for several minutes on the ten policies of sustained-load.yml (every
# algorithm, a day and a second window each), some clients far over their limits, most
# far under. SustainedLoad (with LoadConnection) checks that every request got a 200 or a 429, that the
# gateway's metrics count exactly what was seen, and that each client was admitted what
# its limit allows. Meanwhile the gateway's live heap (what a full GC leaves, every 30 s)
# is logged, to show it flat once every client has been seen. Loopback only; needs a JDK,
# and for the redis and hybrid stores the Redis server that the embedded-redis test
# dependency carries (the build fetches it).
#
# Usage: sample-gateway/scripts/sustained-load.sh [connections] [seconds] [store]
#   e.g. sample-gateway/scripts/sustained-load.sh 300 300 caffeine
#        sample-gateway/scripts/sustained-load.sh 300 180 redis     # or hybrid
#   REDIS_TIMEOUT (default 30s) is ratelimit.redis.timeout; with 50ms (the starter's
#   former default) a loaded machine hands decisions to on-failure, which the accounting reports.
set -euo pipefail
cd "$(dirname "$0")/../.."
connections=${1:-300}
seconds=${2:-300}
store=${3:-caffeine}

./mvnw -B -q -pl sample-gateway -am -DskipTests package
port=${PORT:-18080}
work=$(mktemp -d)
classes="$work/classes"
# The load program and the connection it shares with keep-alive-load.sh's, compiled together.
javac -d "$classes" sample-gateway/scripts/SustainedLoad.java sample-gateway/scripts/LoadConnection.java
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

redis_args=()
if [ "$store" != caffeine ]; then
	redis_port=${REDIS_PORT:-16379}
	jar=$(ls ~/.m2/repository/com/github/codemonstur/embedded-redis/*/embedded-redis-*.jar | tail -1)
	unzip -q -o "$jar" 'redis-server-6.2.6-v5-linux-amd64' -d "$work"
	chmod +x "$work/redis-server-6.2.6-v5-linux-amd64"
	"$work/redis-server-6.2.6-v5-linux-amd64" --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
		>"$work/redis.log" 2>&1 &
	pids+=($!)
	# Every decision by Redis, none by on-failure: on a small machine that also runs the
	# load, a Redis round trip under this load can take seconds.
	redis_args=(--spring.data.redis.port="$redis_port" --ratelimit.store="$store"
		--ratelimit.redis.timeout="${REDIS_TIMEOUT:-30s}")
fi

java -Xmx512m -Xlog:gc:file="$work/gc.log" -jar sample-gateway/target/sample-gateway-0.1.0-SNAPSHOT.jar \
	--server.port="$port" \
	--spring.config.additional-location=file:sample-gateway/scripts/sustained-load.yml \
	--logging.level.root=WARN "${redis_args[@]}" >"$work/gateway.log" 2>&1 &
gateway=$!
pids+=($gateway)
for _ in $(seq 120); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.5
done

# The heap a full collection leaves: what the gateway holds live, read from its GC log
# (the heap in use a moment later would add whatever the traffic allocated meanwhile).
live_heap() {
	jcmd "$gateway" GC.run >/dev/null
	grep 'Pause Full' "$work/gc.log" | tail -1 | sed -n 's/.*->\([0-9]*[KMG]\)(.*/\1/p'
}
echo "store=$store connections=$connections seconds=$seconds"
echo "live heap before load: $(live_heap)"
(
	for t in $(seq 30 30 "$seconds"); do
		sleep 30
		echo "live heap at ${t}s: $(live_heap)"
	done
) &
pids+=($!)
status=0
java -Xss256k -cp "$classes" SustainedLoad "$port" "$connections" "$seconds" || status=$?
echo "live heap after load: $(live_heap)"
echo "gateway GC pauses: $(grep -c 'Pause' "$work/gc.log"), longest $(grep -o '[0-9.]*ms$' "$work/gc.log" | sort -n | tail -1)"
if grep -E ' ERROR |Exception' "$work/gateway.log" | head -5; then
	echo "the gateway logged errors (above)"
	status=1
fi
exit $status
