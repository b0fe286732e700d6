package dev.ratelimit.afterresponse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.shaping.Gateway;
import dev.ratelimit.shaping.Pause;

/**
 * What reading a cost from the response body costs a request through the real gateway
 * (issue 23): one gateway (Caffeine store) with three routes to one upstream answering
 * a 1 KB JSON chat completion, each behind a token bucket that never refuses within
 * the run: {@code plain} takes its cost on admission, {@code plain-twin} is the same
 * (the control: how far two identical routes differ), {@code json} takes an estimate
 * and is charged {@code /usage/total_tokens} from the body. wrk (one thread, 16
 * connections) measures each in turn for 6 s, the order rotated every round, after a
 * warm-up; each sample records the throughput and this JVM's CPU time per request.
 * Needs {@code wrk}; prints the rows docs/benchmarks.md quotes. Run it with
 * {@code ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure test-compile exec:exec@cost-reading-gateway}.
 */
public final class GatewayCostMeasurement {

	private static final List<String> ROUTES = List.of("plain", "plain-twin", "json");

	private static final int ROUNDS = 6;

	private static final long NEVER = 1_000_000_000_000L;

	private GatewayCostMeasurement() {
	}

	public static void main(String[] arguments) {
		try (CostUpstream upstream = new CostUpstream(1_000, Duration.ZERO, 1024)) {
			Policies policies = Policies.on("caffeine")
				.route("plain", upstream.uri(), 1, null, NEVER, NEVER, "1h")
				.route("plain-twin", upstream.uri(), 1, null, NEVER, NEVER, "1h")
				.route("json", upstream.uri(), 1, "json:/usage/total_tokens", NEVER, NEVER, "1h");
			try (Gateway gateway = Gateway.start(policies.list())) {
				measure(gateway);
			}
		}
	}

	private static void measure(Gateway gateway) {
		String base = "http://127.0.0.1:" + gateway.port() + "/";
		for (int i = 0; i < 3; i++) {
			for (String route : ROUTES) {
				Wrk.run(base + route + "/r", Duration.ofSeconds(10));
			}
		}
		Map<String, List<Wrk>> samples = new LinkedHashMap<>();
		ROUTES.forEach((route) -> samples.put(route, new ArrayList<>()));
		for (int round = 0; round < ROUNDS; round++) {
			for (int i = 0; i < ROUTES.size(); i++) {
				String route = ROUTES.get((round + i) % ROUTES.size());
				Pause.of(Duration.ofSeconds(2));
				Wrk sample = Wrk.run(base + route + "/r", Duration.ofSeconds(6));
				samples.get(route).add(sample);
				System.out.printf("round %d %s: %s%n", round + 1, route, sample);
			}
		}
		System.out.println();
		System.out.println("| round | plain (req/s) | plain-twin | json | twin / plain | json / plain | CPU per request, plain (µs) | plain-twin | json | twin / plain | json / plain |");
		System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
		double[][] ratios = new double[4][ROUNDS];
		for (int round = 0; round < ROUNDS; round++) {
			Wrk plain = samples.get("plain").get(round);
			Wrk twin = samples.get("plain-twin").get(round);
			Wrk json = samples.get("json").get(round);
			ratios[0][round] = twin.perSecond() / plain.perSecond();
			ratios[1][round] = json.perSecond() / plain.perSecond();
			ratios[2][round] = twin.cpuMicrosPerRequest() / plain.cpuMicrosPerRequest();
			ratios[3][round] = json.cpuMicrosPerRequest() / plain.cpuMicrosPerRequest();
			System.out.printf(Locale.ROOT, "| %d | %,.0f | %,.0f | %,.0f | %.3f | %.3f | %.1f | %.1f | %.1f | %.3f | %.3f |%n",
					round + 1, plain.perSecond(), twin.perSecond(), json.perSecond(), ratios[0][round], ratios[1][round],
					plain.cpuMicrosPerRequest(), twin.cpuMicrosPerRequest(), json.cpuMicrosPerRequest(),
					ratios[2][round], ratios[3][round]);
		}
		System.out.printf(Locale.ROOT, "| median | | | | **%.3f** | **%.3f** | | | | **%.3f** | **%.3f** |%n",
				median(ratios[0]), median(ratios[1]), median(ratios[2]), median(ratios[3]));
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

}
