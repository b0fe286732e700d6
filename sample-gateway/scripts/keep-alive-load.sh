#!/usr/bin/env bash
# Keep-alive load on the sample gateway, outside the test suite: hundreds of keep-alive
# connections, each alternating a request the gateway answers itself (429, actuator, 404)
# with a proxied one, for a few minutes. Reports requests, statuses and timeouts, and
# exits non-zero on any timeout or unexpected status. Loopback only; needs only a JDK
# (PORT, default 18080, is the gateway's port).
#
# Usage: sample-gateway/scripts/keep-alive-load.sh [connections] [seconds] [extra Maven args]
#   e.g. sample-gateway/scripts/keep-alive-load.sh 300 180
#   Reproduce the lost requests of Reactor Netty 1.3.6 (Spring Boot 4.0.7's own versions):
#   sample-gateway/scripts/keep-alive-load.sh 300 180 -Dreactor-bom.version=2025.0.6 -Dnetty.version=4.2.15.Final
set -euo pipefail
cd "$(dirname "$0")/../.."
connections=${1:-300}
seconds=${2:-180}
shift $(( $# > 2 ? 2 : $# ))

./mvnw -B -q -pl sample-gateway -am -DskipTests package "$@"
port=${PORT:-18080}
log=$(mktemp)
classes=$(mktemp -d)
# The load program and the connection it shares with sustained-load.sh's, compiled together.
javac -d "$classes" sample-gateway/scripts/KeepAliveLoad.java sample-gateway/scripts/LoadConnection.java
java -Xmx512m -jar sample-gateway/target/sample-gateway-0.1.0-SNAPSHOT.jar --server.port="$port" \
	--logging.level.root=WARN >"$log" 2>&1 &
gateway=$!
trap 'kill $gateway 2>/dev/null; wait $gateway 2>/dev/null || true; rm -rf "$log" "$classes"' EXIT
for _ in $(seq 120); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.5
done
grep -E 'Reactor Netty .* can leave' "$log" || true
java -Xss256k -cp "$classes" KeepAliveLoad "$port" "$connections" "$seconds"
