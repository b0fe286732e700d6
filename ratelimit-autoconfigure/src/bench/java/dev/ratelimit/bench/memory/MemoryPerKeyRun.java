package dev.ratelimit.bench.memory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.bench.Charts;
import dev.ratelimit.bench.Contender;
import dev.ratelimit.bench.KeyedLimiter;
import dev.ratelimit.bench.Quota;
import dev.ratelimit.bench.Report;

/**
 * Live heap per tracked key: for each contender, {@code bench.keys} distinct keys (one
 * request each) in a fresh limiter, measured as the growth of the live heap between two
 * full GCs (class histograms), divided by the number of keys. Everything the limiter
 * holds per key counts: the cache's entry and table slots, the key objects as stored,
 * and the state. The sliding window log is also measured holding 1, 10 and 100
 * timestamps per key, to show its cost per stored timestamp.
 * <p>
 * Writes {@code memory-per-key.csv}, {@code memory-per-key.md},
 * {@code memory-breakdown.md} and {@code memory-per-key.png}.
 */
public final class MemoryPerKeyRun {

	private static final int[] LOG_FILLS = { 1, 10, 100 };

	/**
	 * Keeps the limiter under measurement reachable until its histogram is taken.
	 */
	private static volatile KeyedLimiter measured;

	private MemoryPerKeyRun() {
	}

	public static void main(String[] args) {
		int keys = Integer.getInteger("bench.keys", 1_000_000);
		Report report = Report.fromSystemProperties();
		List<String> csv = new ArrayList<>(List.of("limiter,keys,units_per_key,bytes_per_key"));
		List<List<String>> rows = new ArrayList<>();
		List<List<String>> breakdown = new ArrayList<>();
		Map<Contender, Double> perKey = new LinkedHashMap<>();
		for (Contender contender : Contender.values()) {
			Measurement measurement = measure(contender.create(Quota.OPEN, keys), keys, 1);
			perKey.put(contender, measurement.bytesPerKey());
			csv.add(Report.csv(contender.label(), keys, 1, measurement.bytesPerKey()));
			breakdown.add(List.of(contender.label(), Report.number(measurement.bytesPerKey()), measurement.breakdown()));
			System.out.printf("%s: %.1f bytes per key%n", contender.label(), measurement.bytesPerKey());
		}
		double bucket4j = perKey.get(Contender.BUCKET4J);
		perKey.forEach((contender, bytes) -> rows.add(List.of(contender.label(), Report.number(bytes),
				Report.number(bytes / bucket4j) + "x", contender.ours() ? target(contender, bytes) : "")));
		int logKeys = Math.max(1, keys / 10);
		List<String> logRow = new ArrayList<>();
		double[] logBytes = new double[LOG_FILLS.length];
		for (int i = 0; i < LOG_FILLS.length; i++) {
			KeyedLimiter log = Contender.ours(new SlidingWindowLog(LOG_FILLS[LOG_FILLS.length - 1], Duration.ofHours(1)),
					logKeys);
			logBytes[i] = measure(log, logKeys, LOG_FILLS[i]).bytesPerKey();
			csv.add(Report.csv("sliding-window-log limit 100", logKeys, LOG_FILLS[i], logBytes[i]));
			logRow.add(LOG_FILLS[i] + ((LOG_FILLS[i] == 1) ? " timestamp: " : " timestamps: ")
					+ Report.number(logBytes[i]) + " B");
		}
		double perTimestamp = (logBytes[LOG_FILLS.length - 1] - logBytes[0])
				/ (LOG_FILLS[LOG_FILLS.length - 1] - LOG_FILLS[0]);
		rows.add(List.of("sliding-window-log (limit 100, " + String.format("%,d", logKeys) + " keys): "
				+ String.join(", ", logRow), "", "", Report.number(perTimestamp) + " B per timestamp (target ≤ 8)"));
		report.write("memory-per-key.csv", csv);
		report.writeTable("memory-per-key.md", List.of("limiter", "bytes per key", "÷ bucket4j", "target"), rows);
		report.writeTable("memory-breakdown.md", List.of("limiter", "bytes per key", "live bytes per key, by class"),
				breakdown);
		List<String> labels = perKey.keySet().stream().map(Contender::label).toList();
		Map<String, List<Double>> series = new LinkedHashMap<>();
		series.put("bytes per key at " + String.format("%,d", keys) + " keys", List.copyOf(perKey.values()));
		Charts.bars(report.file("memory-per-key.png"), "Live heap per tracked key (lower is better)", "bytes per key",
				labels, series, false);
	}

	private static String target(Contender contender, double bytes) {
		if (contender == Contender.SLIDING_WINDOW_LOG) {
			return "see below";
		}
		return (bytes <= 160) ? "met (≤ 160)" : "missed (≤ 160)";
	}

	/**
	 * The live heap that {@code keys} keys, each judged {@code requestsPerKey} times,
	 * add to {@code limiter}.
	 */
	private static Measurement measure(KeyedLimiter limiter, int keys, int requestsPerKey) {
		HeapHistogram before = HeapHistogram.take();
		measured = limiter;
		for (int i = 0; i < keys; i++) {
			String key = Contender.clientKey(i);
			for (int r = 0; r < requestsPerKey; r++) {
				limiter.acquire(Contender.id(key));
			}
		}
		HeapHistogram after = HeapHistogram.take();
		measured = null;
		return new Measurement(keys, before.growthTo(after), after.totalBytes() - before.totalBytes());
	}

	private record Measurement(int keys, Map<String, Long> growth, long bytes) {

		double bytesPerKey() {
			return (double) this.bytes / this.keys;
		}

		/**
		 * The classes that grew by at least one byte per key, largest first.
		 */
		String breakdown() {
			return this.growth.entrySet()
				.stream()
				.filter((entry) -> entry.getValue() >= this.keys)
				.sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
				.map((entry) -> shortName(entry.getKey()) + " " + Report.number((double) entry.getValue() / this.keys))
				.collect(Collectors.joining(", "));
		}

		private static String shortName(String className) {
			return switch (className) {
				case "[B" -> "byte[]";
				case "[J" -> "long[]";
				case "[I" -> "int[]";
				default -> {
					String name = className.startsWith("[L") ? className.substring(2, className.length() - 1) + "[]"
							: className;
					yield name.replace("java.util.concurrent.", "j.u.c.")
						.replace("java.lang.", "")
						.replace("java.util.", "j.u.")
						.replace("com.github.benmanes.caffeine.cache.", "caffeine.")
						.replace("dev.ratelimit.", "")
						.replace("io.github.bucket4j.", "bucket4j.")
						.replace("com.google.common.util.concurrent.", "guava.")
						.replace("io.github.resilience4j.ratelimiter.", "r4j.");
				}
			};
		}

	}

}
