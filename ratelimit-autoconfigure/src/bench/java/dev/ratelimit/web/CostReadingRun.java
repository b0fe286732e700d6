package dev.ratelimit.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.ratelimit.bench.memory.HeapHistogram;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The cost of reading a request's cost from its response body (issue 23), printed as
 * the Markdown rows docs/benchmarks.md quotes:
 * <ul>
 * <li>{@code cpu}: {@link CostReadingCost} under JMH, time per body read against the
 * control that only walks its bytes, per request and per KB of (decoded) body;</li>
 * <li>{@code memory}: what one reader keeps mid-body, {@value #READERS} readers each fed
 * the first half of a 1 MB body and kept: the live heap's growth per reader (a class
 * histogram, after a full collection), and for gzip the process's resident memory
 * beyond it (zlib's state is native).</li>
 * </ul>
 * {@code -Dbench.costReading.parts=cpu,memory} (the default) chooses the parts; the JMH
 * run length comes from {@code bench.warmups}, {@code bench.iterations},
 * {@code bench.time} and {@code bench.forks}, as for the decision cost. Run it with
 * {@code ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure compile exec:exec@cost-reading}.
 */
public final class CostReadingRun {

	static final int READERS = 5_000;

	private static final int MID_BODY_OF = 1024 * 1024;

	private CostReadingRun() {
	}

	public static void main(String[] arguments) throws RunnerException {
		Set<String> parts = Set.of(System.getProperty("bench.costReading.parts", "cpu,memory").split(","));
		if (parts.contains("cpu")) {
			cpu();
		}
		if (parts.contains("memory")) {
			memory();
		}
	}

	private static void cpu() throws RunnerException {
		Options options = new OptionsBuilder().include(CostReadingCost.class.getName() + "\\.")
			.warmupIterations(Integer.getInteger("bench.warmups", 2))
			.warmupTime(TimeValue.fromString(System.getProperty("bench.time", "1s")))
			.measurementIterations(Integer.getInteger("bench.iterations", 3))
			.measurementTime(TimeValue.fromString(System.getProperty("bench.time", "1s")))
			.forks(Integer.getInteger("bench.forks", 1))
			.jvmArgsAppend("-Xms1g", "-Xmx1g")
			.build();
		Collection<RunResult> results = new Runner(options).run();
		Map<String, double[]> byBody = new TreeMap<>();
		for (RunResult result : results) {
			String benchmark = result.getParams().getBenchmark();
			String key = result.getParams().getParam("body") + " "
					+ String.format(Locale.ROOT, "%09d", Integer.parseInt(result.getParams().getParam("size")));
			double[] micros = byBody.computeIfAbsent(key, (k) -> new double[4]);
			int at = benchmark.endsWith(".read") ? 0 : 2;
			micros[at] = result.getPrimaryResult().getScore();
			micros[at + 1] = result.getPrimaryResult().getScoreError();
		}
		System.out.println();
		System.out.println("| body | size | coded size | read (µs) | walk, the control (µs) | reading's own, per request | per KB |");
		System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
		byBody.forEach((key, micros) -> {
			String[] parts = key.split(" ");
			Bodies bodies = Bodies.named(parts[0]);
			int size = Integer.parseInt(parts[1]);
			double own = micros[0] - micros[2];
			System.out.printf(Locale.ROOT, "| %s | %s | %s | %.2f ± %.2f | %.2f ± %.2f | %s | %.0f ns |%n", parts[0],
					bytes(size), bytes(bodies.bytes(size).length), micros[0], micros[1], micros[2], micros[3],
					nanos(own * 1000), own * 1000 / (size / 1024.0));
		});
	}

	private static void memory() {
		System.out.println();
		System.out.println("| body | live heap per reader mid-body | resident beyond the heap (native), per reader | largest classes per reader |");
		System.out.println("| --- | ---: | ---: | --- |");
		for (Bodies bodies : Bodies.values()) {
			byte[] body = bodies.bytes(MID_BODY_OF);
			ByteBuffer[] firstHalf = Bodies.cut(Arrays.copyOf(body, body.length / 2));
			bodies.check(bodies.chunks(MID_BODY_OF));
			BodyNumbers[] readers = new BodyNumbers[READERS];
			HeapHistogram before = HeapHistogram.take();
			long residentBefore = residentBytes();
			for (int r = 0; r < READERS; r++) {
				readers[r] = BodyNumbers.of(bodies.contentType(), bodies.contentEncoding(), Bodies.POINTERS);
				for (ByteBuffer chunk : firstHalf) {
					readers[r].accept(chunk);
				}
			}
			HeapHistogram after = HeapHistogram.take();
			long resident = residentBytes() - residentBefore;
			long heap = after.totalBytes() - before.totalBytes();
			StringBuilder classes = new StringBuilder();
			before.growthTo(after)
				.entrySet()
				.stream()
				.sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
				.limit(5)
				.forEach((growth) -> classes.append((classes.length() > 0) ? ", " : "")
					.append('`')
					.append(growth.getKey().replaceFirst("^dev\\.ratelimit\\.web\\.", ""))
					.append("` ")
					.append(growth.getValue() / READERS));
			System.out.printf(Locale.ROOT, "| %s | %,d B | %s | %s |%n", bodies.name().toLowerCase(Locale.ROOT),
					heap / READERS,
					(bodies.contentEncoding() != null)
							? String.format(Locale.ROOT, "%,d B", resident / READERS) : "",
					classes);
			for (BodyNumbers reader : readers) {
				reader.finish();
			}
			Reference.reachabilityFence(readers);
		}
	}

	/**
	 * VmRSS of this process: with the heap's pages touched at start
	 * ({@code -XX:+AlwaysPreTouch}), what grows is native memory.
	 */
	private static long residentBytes() {
		try {
			for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
				if (line.startsWith("VmRSS:")) {
					return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot read this process's resident memory", ex);
		}
		throw new IllegalStateException("no VmRSS in /proc/self/status");
	}

	private static String bytes(int size) {
		if (size >= 1024 * 1024) {
			return String.format(Locale.ROOT, "%.1f MB", size / 1024.0 / 1024);
		}
		return (size >= 1024) ? String.format(Locale.ROOT, "%.1f KB", size / 1024.0) : size + " B";
	}

	private static String nanos(double nanos) {
		return (nanos >= 10_000) ? String.format(Locale.ROOT, "%,.1f µs", nanos / 1000)
				: String.format(Locale.ROOT, "%,.0f ns", nanos);
	}

}
