package dev.ratelimit.shaping;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Measures shaping (issue 22) on real gateways started in this JVM, with a real
 * upstream that notes when each request arrives:
 * <ul>
 * <li>{@code smoothness}: one gateway, Caffeine store, a shaping leaky bucket against
 * the same bucket metering, under bursts and a Poisson stream ({@link Smoothness});
 * writes {@code shaping-smoothness.{md,csv}}, {@code shaping-smoothness-arrivals.csv}
 * and {@code shaping-smoothness-{bursts,poisson}.png};</li>
 * <li>{@code fleet}: the same through two gateways on one embedded Redis
 * ({@code store: redis}), requests sent to each in turn; writes
 * {@code shaping-fleet*};</li>
 * <li>{@code cost}: heap per held request ({@link HeldRequestHeap}) and the throughput
 * of an unshaped route while 10,000 requests are held ({@link UnshapedThroughput});
 * writes {@code shaping-held-heap*} and {@code shaping-throughput.{md,csv}}.</li>
 * </ul>
 * {@code -Dbench.shaping.parts=smoothness,fleet,cost} (the default) chooses the parts;
 * the cost part needs {@code wrk}. Fails on wrong behaviour (a forwarded request that
 * never reached the upstream, a hold not given back), never on time. Run it with
 * {@code ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure test-compile exec:exec@shaping}.
 */
public final class ShapingMeasurement {

	private static final int[] HELD = { 1_000, 10_000 };

	private static final int ROUNDS = 6;

	private ShapingMeasurement() {
	}

	public static void main(String[] arguments) throws Exception {
		Set<String> parts = Set.of(System.getProperty("bench.shaping.parts", "smoothness,fleet,cost").split(","));
		Tables tables = new Tables();
		if (parts.contains("smoothness")) {
			oneGateway(tables);
		}
		if (parts.contains("fleet")) {
			fleet(tables);
		}
		if (parts.contains("cost")) {
			cost(tables);
		}
	}

	private static void oneGateway(Tables tables) throws InterruptedException {
		try (ArrivalUpstream upstream = new ArrivalUpstream();
				Gateway gateway = Gateway.start(Smoothness.gateway("caffeine", upstream.uri()).list())) {
			Smoothness.measure("shaping-smoothness", "one gateway", List.of(gateway), upstream, tables);
		}
	}

	private static void fleet(Tables tables) throws InterruptedException {
		try (ArrivalUpstream upstream = new ArrivalUpstream(); EmbeddedRedis redis = new EmbeddedRedis()) {
			List<String> properties = Smoothness.gateway("redis", upstream.uri()).redis(redis.port()).list();
			// One after the other: Spring Boot's logging system is one per JVM, and two
			// applications initializing it at once race on its Logback context.
			try (Gateway first = Gateway.start(properties); Gateway second = Gateway.start(properties)) {
				Smoothness.measure("shaping-fleet", "two gateways on one Redis", List.of(first, second), upstream,
						tables);
			}
		}
	}

	private static void cost(Tables tables) {
		try (ArrivalUpstream upstream = new ArrivalUpstream();
				Gateway gateway = Gateway.start(HeldRoute.gateway(upstream.uri()).list())) {
			HeldRoute.prime(gateway);
			// Whatever a first hold creates once (the timers' queue at its largest) is in
			// every baseline.
			HeldRoute.hold(gateway, HELD[HELD.length - 1]).close();
			HeldRoute.awaitReleased(gateway);
			CostReport.heap(tables, HeldRequestHeap.measure(gateway, HELD));
			int held = HELD[HELD.length - 1];
			CostReport.throughput(tables, held,
					UnshapedThroughput.measure(gateway, held, ROUNDS, Duration.ofSeconds(6)));
		}
	}

}
