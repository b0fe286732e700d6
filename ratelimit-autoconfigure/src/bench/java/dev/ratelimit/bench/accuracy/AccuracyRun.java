package dev.ratelimit.bench.accuracy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.Bucket;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.LimitState;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.bench.Charts;
import dev.ratelimit.bench.Report;

/**
 * A deterministic simulation of one client's traffic (fake clock, seeded random)
 * through each algorithm and through an exact sliding window log, all limiting to
 * {@value #LIMIT} requests per {@value #WINDOW_SECONDS} s (the buckets: capacity
 * {@value #LIMIT}, refilled or drained at {@value #LIMIT} per {@value #WINDOW_SECONDS}
 * s). For each algorithm and traffic model it reports, for its own run, the fraction
 * of decisions that differ from the exact log and which way, the requests admitted
 * against the exact log's, and the most requests admitted in any interval of one
 * window. Decisions of two limiters drift apart once one admits what the other
 * rejected, so it also reports the window algorithms' decision rule's own error: how
 * often the algorithm would decide otherwise than the exact log, were it fed the exact
 * log's admissions. Buckets have no such figure: they cannot go below empty, so they
 * cannot follow a history they would not have admitted.
 * <p>
 * Writes {@code accuracy.csv}, {@code accuracy.md}, {@code accuracy-differing.png} and
 * {@code accuracy-max-window.png}.
 */
public final class AccuracyRun {

	static final long LIMIT = 100;

	static final long WINDOW_SECONDS = 10;

	private static final long WINDOW_NANOS = Duration.ofSeconds(WINDOW_SECONDS).toNanos();

	/**
	 * Simulated time: 360 windows.
	 */
	private static final long DURATION_NANOS = Duration.ofHours(1).toNanos();

	private AccuracyRun() {
	}

	static Map<String, Limit> algorithms() {
		Duration window = Duration.ofSeconds(WINDOW_SECONDS);
		Map<String, Limit> algorithms = new LinkedHashMap<>();
		algorithms.put("fixed-window", new FixedWindow(LIMIT, window));
		algorithms.put("sliding-window-log", new SlidingWindowLog(LIMIT, window));
		algorithms.put("sliding-window-counter", new SlidingWindowCounter(LIMIT, window));
		algorithms.put("token-bucket", new TokenBucket(LIMIT, LIMIT, window));
		algorithms.put("leaky-bucket", new LeakyBucket(LIMIT, LIMIT, window));
		return algorithms;
	}

	static List<TrafficModel> models() {
		return List.of(TrafficModel.poisson(0.5, 1), TrafficModel.poisson(1, 2), TrafficModel.poisson(1.2, 3),
				TrafficModel.poisson(2, 4), TrafficModel.poisson(10, 5), TrafficModel.onOff(6),
				TrafficModel.boundaryAttack());
	}

	public static void main(String[] args) {
		Report report = Report.fromSystemProperties();
		List<TrafficModel> models = models();
		Map<String, Limit> algorithms = algorithms();
		List<String> csv = new ArrayList<>(List.of(
				"model,algorithm,requests,admitted,exact_admitted,differing,over_admitted,over_rejected,max_in_window,"
						+ "rule_differing,rule_over_admitted,rule_over_rejected"));
		Table table = new Table();
		for (TrafficModel model : models) {
			long[] arrivals = model.arrivals(LIMIT, WINDOW_NANOS, DURATION_NANOS);
			Outcome exact = exact(arrivals);
			table.exact(model, exact);
			algorithms.forEach((name, limit) -> {
				Outcome own = run(limit, arrivals);
				Comparison ownRun = Comparison.of(own.admitted, exact.admitted);
				Comparison rule = (limit instanceof TokenBucket || limit instanceof LeakyBucket) ? null
						: rule(limit, arrivals, exact.admitted);
				long most = own.maxInWindow();
				csv.add(Report.csv(model.name(), name, arrivals.length, own.admittedCount(), exact.admittedCount(),
						ownRun.differing(), ownRun.overAdmitted, ownRun.overRejected, most,
						(rule != null) ? rule.differing() : "", (rule != null) ? rule.overAdmitted : "",
						(rule != null) ? rule.overRejected : ""));
				table.add(name, own, exact, ownRun, rule, most);
			});
		}
		List<String> header = new ArrayList<>(List.of("algorithm"));
		models.forEach((model) -> header.add(model.name()));
		report.write("accuracy.csv", csv);
		report.writeTable("accuracy.md", header, table.rows(table.ownRun));
		report.writeTable("accuracy-rule.md", header, table.rows(table.rule));
		report.writeTable("accuracy-max-window.md", header, table.rows(table.maxCells));
		List<String> categories = models.stream().map(TrafficModel::name).toList();
		Charts.bars(report.file("accuracy-differing.png"),
				"Decisions differing from an exact sliding window log, own run (lower is better)", "% of decisions",
				categories, table.ownRunPercent, false);
		Map<String, List<Double>> maxInWindow = new LinkedHashMap<>();
		maxInWindow.put("exact log", table.exactMax);
		maxInWindow.putAll(table.maxInWindow);
		Charts.bars(report.file("accuracy-max-window.png"),
				"Most requests admitted in any one-window interval (limit " + LIMIT + ")", "requests", categories,
				maxInWindow, false);
	}

	private static Outcome exact(long[] arrivals) {
		ExactLog log = new ExactLog(LIMIT, WINDOW_NANOS);
		boolean[] admitted = new boolean[arrivals.length];
		for (int i = 0; i < arrivals.length; i++) {
			admitted[i] = log.tryAcquire(arrivals[i]);
		}
		return new Outcome(arrivals, admitted);
	}

	private static Outcome run(Limit limit, long[] arrivals) {
		Bucket bucket = Bucket.of(List.of(limit), 0);
		boolean[] admitted = new boolean[arrivals.length];
		for (int i = 0; i < arrivals.length; i++) {
			admitted[i] = bucket.tryAcquire(arrivals[i], 1).allowed();
		}
		return new Outcome(arrivals, admitted);
	}

	/**
	 * The algorithm's decision on each request given the exact log's admissions so far.
	 */
	private static Comparison rule(Limit limit, long[] arrivals, boolean[] exactAdmitted) {
		LimitState state = limit.newState(0);
		boolean[] would = new boolean[arrivals.length];
		for (int i = 0; i < arrivals.length; i++) {
			would[i] = state.probe(arrivals[i], 1).allowed();
			if (exactAdmitted[i]) {
				state.commit(arrivals[i], 1);
			}
		}
		return Comparison.of(would, exactAdmitted);
	}

	private record Comparison(int requests, int overAdmitted, int overRejected) {

		static Comparison of(boolean[] admitted, boolean[] exact) {
			int overAdmitted = 0;
			int overRejected = 0;
			for (int i = 0; i < admitted.length; i++) {
				if (admitted[i] && !exact[i]) {
					overAdmitted++;
				}
				else if (!admitted[i] && exact[i]) {
					overRejected++;
				}
			}
			return new Comparison(admitted.length, overAdmitted, overRejected);
		}

		int differing() {
			return this.overAdmitted + this.overRejected;
		}

		double fraction() {
			return (this.requests > 0) ? (double) differing() / this.requests : 0;
		}

		String cell() {
			return String.format("%s (+%,d / −%,d)", Report.percent(fraction()), this.overAdmitted, this.overRejected);
		}

	}

	/**
	 * The cells of the three tables and the values of the charts, per algorithm, one per
	 * traffic model in order.
	 */
	private static final class Table {

		final Map<String, List<String>> ownRun = new LinkedHashMap<>();

		final Map<String, List<String>> rule = new LinkedHashMap<>();

		final Map<String, List<String>> maxCells = new LinkedHashMap<>();

		final Map<String, List<Double>> ownRunPercent = new LinkedHashMap<>();

		final Map<String, List<Double>> maxInWindow = new LinkedHashMap<>();

		final List<Double> exactMax = new ArrayList<>();

		void exact(TrafficModel model, Outcome exact) {
			String requests = String.format("%,d requests, %,d admitted", exact.arrivals.length, exact.admittedCount());
			cells(this.ownRun, "exact log (oracle)").add(requests);
			cells(this.rule, "exact log (oracle)").add(requests);
			long most = exact.maxInWindow();
			cells(this.maxCells, "exact log (oracle)").add(Long.toString(most));
			this.exactMax.add((double) most);
		}

		void add(String name, Outcome own, Outcome exact, Comparison ownRun, Comparison rule, long most) {
			double admittedRatio = (exact.admittedCount() > 0) ? (double) own.admittedCount() / exact.admittedCount()
					: 1;
			cells(this.ownRun, name).add(ownRun.cell() + "; admitted " + Report.percent(admittedRatio));
			cells(this.rule, name).add((rule != null) ? rule.cell() : "n/a (bucket)");
			cells(this.maxCells, name).add(Long.toString(most));
			this.ownRunPercent.computeIfAbsent(name, (key) -> new ArrayList<>()).add(ownRun.fraction() * 100);
			this.maxInWindow.computeIfAbsent(name, (key) -> new ArrayList<>()).add((double) most);
		}

		private static List<String> cells(Map<String, List<String>> table, String name) {
			return table.computeIfAbsent(name, (key) -> new ArrayList<>());
		}

		List<List<String>> rows(Map<String, List<String>> table) {
			List<List<String>> rows = new ArrayList<>();
			table.forEach((name, cells) -> {
				List<String> row = new ArrayList<>(List.of(name));
				row.addAll(cells);
				rows.add(row);
			});
			return rows;
		}

	}

	private record Outcome(long[] arrivals, boolean[] admitted) {

		int admittedCount() {
			int count = 0;
			for (boolean admitted : this.admitted) {
				count += admitted ? 1 : 0;
			}
			return count;
		}

		long maxInWindow() {
			long[] instants = new long[this.arrivals.length];
			int count = 0;
			for (int i = 0; i < this.arrivals.length; i++) {
				if (this.admitted[i]) {
					instants[count++] = this.arrivals[i];
				}
			}
			return ExactLog.maxInAnyWindow(instants, count, WINDOW_NANOS);
		}

	}

}
