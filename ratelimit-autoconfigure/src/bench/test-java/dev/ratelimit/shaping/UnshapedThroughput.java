package dev.ratelimit.shaping;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.management.OperatingSystemMXBean;

/**
 * The throughput of the gateway's unshaped route (metered by a policy that never
 * refuses) measured by wrk while the shaped route holds {@code n} requests and while it
 * holds none, alternately, the order swapped every round, so that the machine's drift
 * weighs on both alike. Each sample also records this JVM's CPU time per request (the
 * gateway's and the upstream's, all threads, the collector's included), which other
 * processes on a busy machine disturb less than throughput, and its collection time.
 * <p>
 * Each phase is sampled twice: fresh, a pause after the holds began (or ended), when
 * young collections still copy what the holds keep, as they do all along in shaping,
 * whose holds last seconds; then settled, after a full collection has moved the held
 * requests to the old generation, as it does for long holds.
 */
final class UnshapedThroughput {

	private static final Pattern REQUESTS_PER_SECOND = Pattern.compile("Requests/sec:\\s+([\\d.]+)");

	private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in");

	private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+(\\d+)");

	static final int CONNECTIONS = 16;

	private UnshapedThroughput() {
	}

	static List<Round> measure(Gateway gateway, int held, int rounds, Duration each) {
		String url = "http://127.0.0.1:" + gateway.port() + "/" + HeldRoute.OPEN + "/r";
		// A gateway just started needs about a minute of load on this machine before its
		// throughput stops rising (the JIT).
		for (int i = 0; i < 6; i++) {
			wrk(url, Duration.ofSeconds(10));
		}
		List<Round> results = new ArrayList<>();
		for (int round = 0; round < rounds; round++) {
			Phase none;
			Phase holding;
			if (round % 2 == 0) {
				none = phase(url, each);
				holding = whileHeld(gateway, held, url, each);
			}
			else {
				holding = whileHeld(gateway, held, url, each);
				none = phase(url, each);
			}
			results.add(new Round(round + 1, none, holding));
			System.out.printf("round %d: none held %s; %,d held %s%n", round + 1, none, held, holding);
		}
		return results;
	}

	private static Phase whileHeld(Gateway gateway, int held, String url, Duration each) {
		Phase phase;
		try (HeldConnections connections = HeldRoute.hold(gateway, held)) {
			phase = phase(url, each);
			if (gateway.held().held() != held) {
				throw new IllegalStateException("held requests went from " + held + " to " + gateway.held().held()
						+ " while measuring");
			}
		}
		HeldRoute.awaitReleased(gateway);
		return phase;
	}

	private static Phase phase(String url, Duration each) {
		Sample fresh = wrk(url, each);
		System.gc();
		return new Phase(fresh, wrk(url, each));
	}

	/**
	 * What wrk measured, every answer a 200, and this JVM's CPU and collection time
	 * meanwhile. Starts after a pause, so that opening or closing thousands of
	 * connections, or a full collection, is over.
	 */
	private static Sample wrk(String url, Duration duration) {
		Pause.of(Duration.ofSeconds(2));
		OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
		long cpuBefore = os.getProcessCpuTime();
		long gcBefore = gcMillis();
		String output;
		int exited;
		try {
			Process process = new ProcessBuilder("wrk", "-t1", "-c" + CONNECTIONS, "-d" + duration.toSeconds() + "s",
					"-H", "X-Client: wrk", url)
				.redirectErrorStream(true)
				.start();
			output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			exited = process.waitFor();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot run wrk; install it (apt-get install wrk)", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		long cpu = os.getProcessCpuTime() - cpuBefore;
		long gc = gcMillis() - gcBefore;
		if (exited != 0) {
			throw new IllegalStateException("wrk failed: " + output);
		}
		Matcher non2xx = NON_2XX.matcher(output);
		if (non2xx.find()) {
			throw new IllegalStateException(non2xx.group(1) + " answers were not 200: " + output);
		}
		Matcher perSecond = REQUESTS_PER_SECOND.matcher(output);
		Matcher requests = REQUESTS.matcher(output);
		if (!perSecond.find() || !requests.find()) {
			throw new IllegalStateException("no throughput in wrk's output: " + output);
		}
		return new Sample(Double.parseDouble(perSecond.group(1)), cpu / 1e3 / Long.parseLong(requests.group(1)), gc);
	}

	private static long gcMillis() {
		return ManagementFactory.getGarbageCollectorMXBeans()
			.stream()
			.mapToLong(GarbageCollectorMXBean::getCollectionTime)
			.sum();
	}

	/**
	 * @param perSecond requests per second
	 * @param cpuMicrosPerRequest this JVM's CPU time per request
	 * @param gcMillis time this JVM's collectors reported meanwhile
	 */
	record Sample(double perSecond, double cpuMicrosPerRequest, long gcMillis) {

		@Override
		public String toString() {
			return String.format(Locale.ROOT, "%.0f req/s, %.1f µs CPU each, %d ms collecting", this.perSecond,
					this.cpuMicrosPerRequest, this.gcMillis);
		}

	}

	/**
	 * A phase's two samples: fresh, then after a full collection.
	 */
	record Phase(Sample fresh, Sample settled) {

		@Override
		public String toString() {
			return "fresh " + this.fresh + ", settled " + this.settled;
		}

	}

	/**
	 * @param none the phase with nothing held
	 * @param held the phase while the requests were held
	 */
	record Round(int round, Phase none, Phase held) {
	}

}
