package dev.ratelimit.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.bench.Charts;
import dev.ratelimit.bench.Report;

/**
 * Turns the runs of src/bench/e2e.sh ({@code e2e-runs.csv}: one line per wrk run) into
 * {@code e2e.csv} (a copy), {@code e2e.md} and {@code e2e-throughput.png}. Per workload
 * and gateway: the medians over the rounds of requests per second, p50 and p99
 * latency, each with its ratio to the gateway without a limiter measured in the same
 * round (the median of the per-round ratios), the per-round throughput ratios
 * themselves, the gateway's own CPU time per request likewise, the share of responses
 * that were not 2xx, and Redis calls per request. The second no-limiter gateway's
 * ratios say how far two identical gateways drift apart in that run: a difference no
 * larger than theirs is not one the run can tell.
 * <p>
 * Arguments: the runs file, then the run length in seconds, the rounds and the
 * connections, for the table's caption.
 */
public final class E2eReport {

	private static final String BASELINE = "none";

	private static final Map<String, String> GATEWAYS = new LinkedHashMap<>();

	static {
		GATEWAYS.put("none", "no limiter");
		GATEWAYS.put("none-twin", "no limiter, a second JVM (noise floor)");
		GATEWAYS.put("rl-caffeine", "RateLimit, Caffeine");
		GATEWAYS.put("rl-caffeine-unobserved", "RateLimit, Caffeine, decisions not observed");
		GATEWAYS.put("rl-redis", "RateLimit, Redis (exact)");
		GATEWAYS.put("rl-redis-unobserved", "RateLimit, Redis (exact), decisions not observed");
		GATEWAYS.put("rl-hybrid", "RateLimit, hybrid");
		GATEWAYS.put("rl-hybrid-unobserved", "RateLimit, hybrid, decisions not observed");
		GATEWAYS.put("scg-redis", "RequestRateLimiter, RedisRateLimiter");
		GATEWAYS.put("scg-bucket4j", "RequestRateLimiter, Bucket4jRateLimiter (Caffeine)");
	}

	private E2eReport() {
	}

	public static void main(String[] args) throws IOException {
		List<String> lines = Files.readAllLines(Path.of(args[0]));
		List<Run> runs = new ArrayList<>();
		for (String line : lines.subList(1, lines.size())) {
			runs.add(Run.parse(line));
		}
		Report report = Report.fromSystemProperties();
		report.write("e2e.csv", lines);
		List<String> workloads = runs.stream().map(Run::workload).distinct().toList();
		List<List<String>> rows = new ArrayList<>();
		Map<String, List<Double>> ratios = new LinkedHashMap<>();
		for (String workload : workloads) {
			for (String gateway : GATEWAYS.keySet()) {
				List<Run> own = runs.stream().filter((run) -> run.matches(workload, gateway)).toList();
				if (own.isEmpty()) {
					continue;
				}
				List<Double> throughputRatios = ratios(runs, own, Run::requestsPerSecond);
				double throughputRatio = median(throughputRatios);
				ratios.computeIfAbsent(GATEWAYS.get(gateway), (key) -> new ArrayList<>(filled(workloads.size())))
					.set(workloads.indexOf(workload), throughputRatio);
				rows.add(List.of(workload, GATEWAYS.get(gateway),
						Report.number(median(own, Run::requestsPerSecond)) + " ("
								+ Report.number(throughputRatio * 100) + " %)",
						String.join(", ", throughputRatios.stream().map((ratio) -> Report.number(ratio * 100)).toList()),
						Report.number(median(own, Run::p50)) + " ms ("
								+ Report.number(medianRatio(runs, own, Run::p50)) + "x)",
						Report.number(median(own, Run::p99)) + " ms ("
								+ Report.number(medianRatio(runs, own, Run::p99)) + "x)",
						Report.number(median(own, Run::cpuMicrosPerRequest)) + " µs ("
								+ Report.number(medianRatio(runs, own, Run::cpuMicrosPerRequest)) + "x)",
						Report.percent(rejected(own)), redisCallsPerRequest(own)));
			}
		}
		System.out.printf("wrk -t1 -c%s, %s s per run, %s rounds alternating the gateways%n", args[3], args[1],
				args[2]);
		report.writeTable("e2e.md", List.of("workload", "gateway", "requests/s (÷ no limiter)", "÷ no limiter per round, %",
				"p50 (÷ no limiter)", "p99 (÷ no limiter)", "gateway CPU per request (÷ no limiter)", "not 2xx",
				"Redis calls per request"), rows);
		Charts.bars(report.file("e2e-throughput.png"),
				"Throughput as a share of the same gateway without a limiter (higher is better)",
				"requests/s ÷ no limiter", workloads, ratios, false);
	}

	private static List<Double> filled(int size) {
		Double[] values = new Double[size];
		Arrays.fill(values, Double.NaN);
		return Arrays.asList(values);
	}

	private static double median(List<Run> runs, Metric metric) {
		return median(runs.stream().mapToDouble(metric::of).toArray());
	}

	/**
	 * The median over rounds of this gateway's figure divided by the baseline's figure
	 * of the same round and workload.
	 */
	private static double medianRatio(List<Run> all, List<Run> own, Metric metric) {
		return median(ratios(all, own, metric));
	}

	/**
	 * This gateway's figure divided by the baseline's figure of the same round and
	 * workload, round by round.
	 */
	private static List<Double> ratios(List<Run> all, List<Run> own, Metric metric) {
		List<Double> ratios = new ArrayList<>();
		for (Run run : own) {
			all.stream()
				.filter((other) -> other.round == run.round && other.matches(run.workload, BASELINE))
				.findFirst()
				.ifPresent((baseline) -> ratios.add(metric.of(run) / metric.of(baseline)));
		}
		return ratios;
	}

	private static double median(List<Double> values) {
		return median(values.stream().mapToDouble(Double::doubleValue).toArray());
	}

	private static double median(double[] values) {
		if (values.length == 0) {
			return Double.NaN;
		}
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	private static double rejected(List<Run> runs) {
		long requests = runs.stream().mapToLong(Run::requests).sum();
		long non2xx = runs.stream().mapToLong(Run::non2xx).sum();
		return (requests > 0) ? (double) non2xx / requests : 0;
	}

	private static String redisCallsPerRequest(List<Run> runs) {
		if (runs.stream().anyMatch((run) -> run.redisCalls < 0)) {
			return "";
		}
		long requests = runs.stream().mapToLong(Run::requests).sum();
		long calls = runs.stream().mapToLong(Run::redisCalls).sum();
		return String.format("%.3f", (double) calls / requests);
	}

	@FunctionalInterface
	private interface Metric {

		double of(Run run);

	}

	/**
	 * One wrk run; {@code redisCalls} is negative for a gateway that does not call Redis.
	 * {@code cpuMicrosPerRequest} is the gateway JVM's CPU time (every thread, user and
	 * system) during the run divided by the requests answered: a Redis-backed gateway's
	 * Redis is not in it.
	 */
	private record Run(int round, String workload, String gateway, long requests, double requestsPerSecond,
			double p50, double p99, long non2xx, long redisCalls, double cpuMicrosPerRequest) {

		static Run parse(String line) {
			String[] cells = line.split(",", -1);
			return new Run(Integer.parseInt(cells[0]), cells[1], cells[2], Long.parseLong(cells[3]),
					Double.parseDouble(cells[4]), Double.parseDouble(cells[5]), Double.parseDouble(cells[6]),
					Long.parseLong(cells[7]), cells[8].isEmpty() ? -1 : Long.parseLong(cells[8]),
					Double.parseDouble(cells[9]));
		}

		boolean matches(String workload, String gateway) {
			return this.workload.equals(workload) && this.gateway.equals(gateway);
		}

	}

}
