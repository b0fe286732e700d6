package dev.ratelimit.shaping;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.shaping.LoadClient.Arm;
import dev.ratelimit.shaping.LoadClient.Sent;

/**
 * How smooth the upstream's input is behind a shaping leaky bucket, against the same
 * bucket metering: both policies get the same traffic at the same instants, each on its
 * own route to the one upstream, through the same gateway or gateways. Bursts of 50
 * every 10 s fit the bucket whole, so the meter forwards each at once and shaping
 * spaces it over 4.9 s; a Poisson stream at three times the drain rate fills the bucket,
 * and both then forward at the drain rate and refuse the rest.
 */
final class Smoothness {

	static final double DRAIN_RATE = 10;

	static final long CAPACITY = 50;

	static final String MAX_DELAY = "5s";

	/**
	 * Long enough for a full bucket to drain, so that each run starts from an empty
	 * one.
	 */
	private static final Duration TAIL = Duration.ofSeconds(6);

	static final List<Traffic> TRAFFIC = List.of(Traffic.bursts(3, 50, Duration.ofSeconds(10), TAIL),
			Traffic.poisson(3 * DRAIN_RATE, Duration.ofSeconds(30), TAIL, 22));

	private Smoothness() {
	}

	/**
	 * The routes and policies of a measured gateway: {@code shaped}, {@code metered} and
	 * {@code open} (never refusing, for the warm-up).
	 */
	static GatewayProperties gateway(String store, String upstream) {
		return GatewayProperties.on(store)
			.route("shaped", upstream, "shaped")
			.route("metered", upstream, "metered")
			.route("open", upstream, "open")
			.leakyBucket("shaped", CAPACITY, DRAIN_RATE, "1s", MAX_DELAY)
			.leakyBucket("metered", CAPACITY, DRAIN_RATE, "1s", null)
			.neverRefusing("open");
	}

	/**
	 * Run every traffic pattern through the gateways and write
	 * {@code <name>.md|csv}, {@code <name>-arrivals.csv} and one chart per pattern,
	 * {@code <name>-<pattern>.png}.
	 * @param setup what the gateways are, for the charts' titles
	 */
	static void measure(String name, String setup, List<Gateway> gateways, ArrivalUpstream upstream, Tables tables)
			throws InterruptedException {
		List<Integer> ports = gateways.stream().map(Gateway::port).toList();
		List<Arm> arms = List.of(new Arm("shaped (max-delay " + MAX_DELAY + ")", "shaped", ports),
				new Arm("metered", "metered", ports));
		List<List<String>> rows = new ArrayList<>();
		List<List<String>> csv = new ArrayList<>();
		List<List<String>> arrivals = new ArrayList<>();
		try (LoadClient client = new LoadClient()) {
			client.warmUp(ports, "open", 5_000, 100);
			for (Traffic traffic : TRAFFIC) {
				List<ArmResult> results = run(name, traffic, client, arms, gateways, upstream);
				for (ArmResult result : results) {
					rows.add(row(traffic, result));
					csv.add(csvRow(traffic, result));
					for (int bin = 0; bin < result.bins().length; bin++) {
						arrivals.add(List.of(traffic.name(), result.arm(),
								Tables.raw(bin * ArmResult.BIN_MILLIS / 1000.0), Integer.toString(result.bins()[bin])));
					}
				}
				ArrivalChart.write(tables.file(name + "-" + traffic.name() + ".png"),
						traffic.title() + ", " + setup + ": leaky bucket " + CAPACITY + " draining "
								+ Math.round(DRAIN_RATE) + "/s",
						results, DRAIN_RATE);
			}
		}
		tables.markdown(name + ".md", List.of("Traffic", "Policy", "Sent", "Forwarded", "Refused (429)", "Other",
				"Held", "Most in any " + ArmResult.WINDOW_MILLIS + " ms", "Smallest gap (ms)", "Wait p50 (ms)", "p90",
				"p99", "max", "Longest hold decided (ms)"), rows);
		tables.csv(name + ".csv", List.of("traffic", "policy", "sent", "forwarded", "refused", "other", "held",
				"most_in_100ms", "smallest_gap_ms", "wait_p50_ms", "wait_p90_ms", "wait_p99_ms", "wait_max_ms",
				"longest_decided_ms"), csv);
		tables.csv(name + "-arrivals.csv", List.of("traffic", "policy", "bin_start_s", "arrivals"), arrivals);
	}

	/**
	 * Send one traffic pattern to every arm and tell what each did.
	 */
	private static List<ArmResult> run(String name, Traffic traffic, LoadClient client, List<Arm> arms,
			List<Gateway> gateways, ArrivalUpstream upstream) throws InterruptedException {
		upstream.clear();
		gateways.forEach((gateway) -> gateway.decidedHolds().clear());
		// To match a stall in the arrivals with the collections in the GC log.
		System.out.printf("%s: %s starts at %.3f s of the JVM's uptime%n", name, traffic.name(),
				ManagementFactory.getRuntimeMXBean().getUptime() / 1000.0);
		Sent sent = client.send(traffic, arms);
		if (upstream.noted() != countArrivals(upstream, sent)) {
			throw new IllegalStateException("a request reached the upstream more than once");
		}
		List<ArmResult> results = new ArrayList<>();
		for (int a = 0; a < arms.size(); a++) {
			Arm arm = arms.get(a);
			results.add(ArmResult.of(arm.name(), sent, upstream, a, arms.size(), traffic.lengthNanos(),
					ArmResult.Holds.of(gateways, arm.path())));
		}
		return results;
	}

	private static int countArrivals(ArrivalUpstream upstream, Sent sent) {
		int arrived = 0;
		for (int request = 0; request < sent.statuses().length; request++) {
			if (upstream.arrival(request) != null) {
				arrived++;
			}
		}
		return arrived;
	}

	private static List<String> row(Traffic traffic, ArmResult result) {
		List<String> row = new ArrayList<>(List.of(traffic.title(), result.arm(), Integer.toString(result.sent()),
				Integer.toString(result.forwarded()), Integer.toString(result.refused()),
				Integer.toString(result.other()), Long.toString(result.held()), Integer.toString(result.mostInWindow()),
				Tables.number(result.smallestGapMillis())));
		for (double wait : result.waitMillis()) {
			row.add(Tables.number(wait));
		}
		row.add(Tables.number(result.longestDecidedMillis()));
		return row;
	}

	private static List<String> csvRow(Traffic traffic, ArmResult result) {
		List<String> row = new ArrayList<>(List.of(traffic.name(), result.arm(), Integer.toString(result.sent()),
				Integer.toString(result.forwarded()), Integer.toString(result.refused()),
				Integer.toString(result.other()), Long.toString(result.held()), Integer.toString(result.mostInWindow()),
				Tables.raw(result.smallestGapMillis())));
		for (double wait : result.waitMillis()) {
			row.add(Tables.raw(wait));
		}
		row.add(Tables.raw(result.longestDecidedMillis()));
		return row;
	}

}
