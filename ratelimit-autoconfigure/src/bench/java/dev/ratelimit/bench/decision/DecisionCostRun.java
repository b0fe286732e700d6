package dev.ratelimit.bench.decision;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ratelimit.bench.Charts;
import dev.ratelimit.bench.Contender;
import dev.ratelimit.bench.Report;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link DecisionCost} and {@link AlgorithmCost} with JMH's GC profiler and writes
 * {@code decision-cost.csv} (with each score's error), {@code decision-cost.md} and
 * {@code decision-cost.png}; JMH's raw results go to {@code target/bench}.
 * Run length comes from system properties ({@code bench.warmups},
 * {@code bench.iterations}, {@code bench.time}, {@code bench.forks}), the benchmarks
 * from {@code bench.include} (a regular expression of benchmark names) and the number
 * of keys of {@code manyKeys} from {@code bench.keys}. With {@code bench.reportOnly}, it
 * only rewrites the table and chart from the CSV of the last run.
 */
public final class DecisionCostRun {

	/**
	 * The workloads in table order: JMH method and column title.
	 */
	private static final Map<String, String> WORKLOADS = new LinkedHashMap<>();

	static {
		WORKLOADS.put("AlgorithmCost.hotKey", "bare algorithm, 1 thread");
		WORKLOADS.put("DecisionCost.hotKey", "hot key, 1 thread");
		WORKLOADS.put("DecisionCost.hotKeyTwoThreads", "hot key, 2 threads");
		WORKLOADS.put("DecisionCost.rejectedKey", "hot key rejected");
		WORKLOADS.put("DecisionCost.manyKeys", "random of 1M keys");
		WORKLOADS.put("DecisionCost.newKey", "new key, cache full");
	}

	private DecisionCostRun() {
	}

	public static void main(String[] args) throws Exception {
		Report report = Report.fromSystemProperties();
		if (Boolean.getBoolean("bench.reportOnly")) {
			write(report, measurements(Files.readAllLines(report.file("decision-cost.csv"))));
			return;
		}
		Options options = new OptionsBuilder()
			.include("dev\\.ratelimit\\.bench\\.decision\\.(" + System.getProperty("bench.include", ".*") + ")")
			.param("keys", System.getProperty("bench.keys", "1000000"))
			.warmupIterations(Integer.getInteger("bench.warmups", 2))
			.warmupTime(TimeValue.fromString(System.getProperty("bench.time", "1s")))
			.measurementIterations(Integer.getInteger("bench.iterations", 3))
			.measurementTime(TimeValue.fromString(System.getProperty("bench.time", "1s")))
			.forks(Integer.getInteger("bench.forks", 1))
			.jvmArgsAppend("-Xms3g", "-Xmx3g")
			.addProfiler(GCProfiler.class)
			.resultFormat(ResultFormatType.JSON)
			.result(rawResults().toString())
			.build();
		Collection<RunResult> results = new Runner(options).run();
		write(report, measurements(results));
	}

	/**
	 * Score and allocation per contender, then per workload.
	 */
	private static Map<Contender, Map<String, Measurement>> measurements(Collection<RunResult> results) {
		Map<Contender, Map<String, Measurement>> byContender = new TreeMap<>();
		for (RunResult result : results) {
			String benchmark = result.getParams().getBenchmark();
			String workload = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1);
			Contender contender = Contender.of(result.getParams().getParam("limiter"));
			Result<?> primary = result.getPrimaryResult();
			double bytes = Double.NaN;
			for (Map.Entry<String, Result> secondary : result.getSecondaryResults().entrySet()) {
				if (secondary.getKey().endsWith("gc.alloc.rate.norm")) {
					bytes = secondary.getValue().getScore();
				}
			}
			byContender.computeIfAbsent(contender, (key) -> new LinkedHashMap<>())
				.put(workload, new Measurement(primary.getScore(), primary.getScoreError(), bytes));
		}
		return byContender;
	}

	/**
	 * JMH's own results, every iteration of every benchmark: too bulky for the
	 * documentation, so they stay in the build directory.
	 */
	private static Path rawResults() throws IOException {
		Path directory = Files.createDirectories(Path.of("target", "bench"));
		return directory.resolve("decision-cost.json").toAbsolutePath();
	}

	/**
	 * The measurements of an earlier run, from its CSV.
	 */
	private static Map<Contender, Map<String, Measurement>> measurements(List<String> csv) {
		Map<Contender, Map<String, Measurement>> byContender = new TreeMap<>();
		for (String line : csv.subList(1, csv.size())) {
			String[] cells = line.split(",");
			byContender.computeIfAbsent(Contender.of(cells[0]), (key) -> new LinkedHashMap<>())
				.put(cells[1], new Measurement(Double.parseDouble(cells[2]), Double.parseDouble(cells[3]),
						Double.parseDouble(cells[4])));
		}
		return byContender;
	}

	private static void write(Report report, Map<Contender, Map<String, Measurement>> byContender) {
		List<String> csv = new ArrayList<>();
		csv.add("limiter,workload,ns_per_op,error_ns,bytes_per_op");
		List<String> header = new ArrayList<>(List.of("limiter"));
		header.addAll(WORKLOADS.values());
		List<List<String>> rows = new ArrayList<>();
		Map<String, List<Double>> series = new LinkedHashMap<>();
		for (Map.Entry<Contender, Map<String, Measurement>> entry : byContender.entrySet()) {
			List<String> row = new ArrayList<>(List.of(entry.getKey().label()));
			List<Double> values = new ArrayList<>();
			for (String workload : WORKLOADS.keySet()) {
				Measurement measurement = entry.getValue().get(workload);
				row.add((measurement != null) ? measurement.cell() : "");
				values.add((measurement != null) ? measurement.nanos : Double.NaN);
				if (measurement != null) {
					csv.add(Report.csv(entry.getKey().label(), workload, measurement.nanos, measurement.error,
							measurement.bytes));
				}
			}
			rows.add(row);
			series.put(entry.getKey().label(), values);
		}
		rows.add(ratioRow(byContender));
		report.write("decision-cost.csv", csv);
		report.writeTable("decision-cost.md", header, rows);
		List<String> categories = new ArrayList<>(WORKLOADS.values());
		Charts.bars(report.file("decision-cost.png"), "Cost of one decision (JMH, lower is better)",
				"ns per decision (log scale)", categories, series, true);
	}

	/**
	 * Our token bucket's time as a multiple of Bucket4j's, per workload: the target is at
	 * most 1.
	 */
	private static List<String> ratioRow(Map<Contender, Map<String, Measurement>> byContender) {
		List<String> row = new ArrayList<>(List.of("token-bucket ÷ bucket4j (time)"));
		Map<String, Measurement> ours = byContender.getOrDefault(Contender.TOKEN_BUCKET, Map.of());
		Map<String, Measurement> theirs = byContender.getOrDefault(Contender.BUCKET4J, Map.of());
		for (String workload : WORKLOADS.keySet()) {
			Measurement a = ours.get(workload);
			Measurement b = theirs.get(workload);
			row.add((a != null && b != null) ? Report.number(a.nanos / b.nanos) + "x" : "");
		}
		return row;
	}

	private record Measurement(double nanos, double error, double bytes) {

		String cell() {
			return Report.number(this.nanos) + " ns, " + Report.number(this.bytes) + " B";
		}

	}

}
