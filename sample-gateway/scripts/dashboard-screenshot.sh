#!/usr/bin/env bash
# Refreshes docs/dashboard.png, the README's picture of the rate limit dashboard: starts
# the sample gateway, sends it a mix of traffic (some of it over its limits) for a while,
# and has headless Chromium, driven through ChromeDriver's WebDriver protocol, take a
# screenshot of /actuator/ratelimits-dashboard. Loopback only.
#
# Needs Debian's chromium and chromium-driver (installed with apt-get when missing, as
# root) and curl. Usage: sample-gateway/scripts/dashboard-screenshot.sh [seconds of traffic]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-40}
port=${PORT:-18090}
driver_port=${DRIVER_PORT:-9515}

if ! command -v chromedriver >/dev/null || ! command -v chromium >/dev/null; then
	apt-get update -q && apt-get install -y -q chromium chromium-driver
fi
./mvnw -B -q -pl sample-gateway -am -DskipTests package

java -jar sample-gateway/target/sample-gateway-0.1.0-SNAPSHOT.jar --server.port="$port" \
	--logging.level.root=WARN >/dev/null 2>&1 &
gateway=$!
chromedriver --port="$driver_port" >/dev/null 2>&1 &
driver=$!
trap 'kill $gateway $driver $(jobs -p) 2>/dev/null || true' EXIT
for _ in $(seq 120); do
	curl -sf "http://127.0.0.1:$port/actuator/health" >/dev/null && break
	sleep 0.5
done

base="http://127.0.0.1:$port"
traffic() {
	local end=$((SECONDS + seconds + 10))
	while [ $SECONDS -lt $end ]; do
		curl -s -o /dev/null -H 'X-API-Key: demo-free-key' "$base/api/orders/1"
		curl -s -o /dev/null -H 'X-API-Key: demo-pro-key' "$base/api/orders/2"
		curl -s -o /dev/null "$base/api/orders/3"
		curl -s -o /dev/null "$base/api/search?q=shoes"
		curl -s -o /dev/null "$base/api/payments/checkout"
		curl -s -o /dev/null "$base/api/reports/daily"
		sleep 0.2
	done
}
traffic &

session=$(curl -s -X POST "http://127.0.0.1:$driver_port/session" -H 'Content-Type: application/json' -d '{
  "capabilities": { "alwaysMatch": { "goog:chromeOptions": {
    "binary": "/usr/bin/chromium",
    "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--window-size=1280,1100", "--hide-scrollbars"] } } } }' |
	grep -o '"sessionId":"[^"]*"' | cut -d'"' -f4)
[ -n "$session" ] || { echo "ChromeDriver did not start a session" >&2; exit 1; }
curl -s -X POST "http://127.0.0.1:$driver_port/session/$session/url" -H 'Content-Type: application/json' \
	-d "{\"url\": \"$base/actuator/ratelimits-dashboard\"}" >/dev/null
sleep "$seconds"
curl -s "http://127.0.0.1:$driver_port/session/$session/screenshot" | grep -o '"value":"[^"]*"' | cut -d'"' -f4 |
	base64 -d >docs/dashboard.png
curl -s -X DELETE "http://127.0.0.1:$driver_port/session/$session" >/dev/null
echo "wrote docs/dashboard.png"
