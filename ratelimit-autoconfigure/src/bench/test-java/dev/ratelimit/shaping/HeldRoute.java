package dev.ratelimit.shaping;

import java.time.Duration;

/**
 * The cost measurements' gateway: a route whose leaky bucket holds every request behind
 * the first for hours (one unit an hour drains, and max-delay is longer than the last
 * request's wait), so that {@code n} requests stay held for as long as they are
 * measured, and an unshaped route whose metering policy never refuses.
 */
final class HeldRoute {

	static final String HELD = "held";

	static final String OPEN = "open";

	private static final int MOST = 10_000;

	private HeldRoute() {
	}

	static GatewayProperties gateway(String upstream) {
		return GatewayProperties.on("caffeine")
			.route(HELD, upstream, HELD)
			.route(OPEN, upstream, OPEN)
			.leakyBucket(HELD, MOST + 2, 1, "1h", (MOST + 2) + "h")
			.neverRefusing(OPEN);
	}

	/**
	 * Send the one request that passes at once and whose unit stays for the run (an hour
	 * drains one), so that every request after it is held.
	 */
	static void prime(Gateway gateway) {
		HeldConnections.open(gateway.port(), HELD, 1, false).close();
	}

	/**
	 * Hold {@code count} requests, once {@link #prime primed}. Returns once the gateway
	 * holds them all.
	 */
	static HeldConnections hold(Gateway gateway, int count) {
		if (count > MOST) {
			throw new IllegalArgumentException("the held route holds at most " + MOST);
		}
		HeldConnections connections = HeldConnections.open(gateway.port(), HELD, count, true);
		await(gateway, count, "held");
		return connections;
	}

	/**
	 * Wait for every held request's client to have gone: each hold cancelled, its place
	 * given back, so that the next hold starts from an empty bucket.
	 */
	static void awaitReleased(Gateway gateway) {
		await(gateway, 0, "released");
	}

	private static void await(Gateway gateway, int held, String what) {
		long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
		while (gateway.held().held() != held) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("expected " + held + " requests held once " + what + ", but "
						+ gateway.held().held() + " are");
			}
			Pause.of(Duration.ofMillis(50));
		}
	}

}
