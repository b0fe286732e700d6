package dev.ratelimit.shaping;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.shaping.HeldRequestHeap.Row;
import dev.ratelimit.shaping.UnshapedThroughput.Phase;
import dev.ratelimit.shaping.UnshapedThroughput.Round;
import dev.ratelimit.shaping.UnshapedThroughput.Sample;

/**
 * The tables of what holding costs: {@code shaping-held-heap.{md,csv}},
 * {@code shaping-held-heap-classes.md} and {@code shaping-throughput.{md,csv}}.
 */
final class CostReport {

	private CostReport() {
	}

	static void heap(Tables tables, HeldRequestHeap.Result heap) {
		List<List<String>> rows = new ArrayList<>();
		List<List<String>> csv = new ArrayList<>();
		for (Row row : heap.rows()) {
			rows.add(List.of(String.format(Locale.ROOT, "%,d", row.held()), Tables.number(row.perIdleConnection()),
					Tables.number(row.perHeldRequest()), Tables.number(row.perHeldRequest() - row.perIdleConnection()),
					Tables.number(row.perHeldRequestUsed())));
			csv.add(List.of(Integer.toString(row.held()), Tables.raw(row.perIdleConnection()),
					Tables.raw(row.perHeldRequest()), Tables.raw(row.perHeldRequestUsed())));
		}
		tables.markdown("shaping-held-heap.md", List.of("Requests held", "Live bytes per idle connection (control)",
				"per held request", "the hold beyond its connection", "heap used per held request (MemoryMXBean)"),
				rows);
		tables.csv("shaping-held-heap.csv", List.of("held", "live_bytes_per_idle_connection",
				"live_bytes_per_held_request", "used_bytes_per_held_request"), csv);
		List<List<String>> classes = new ArrayList<>();
		for (Map.Entry<String, Long> entry : heap.largestGrowth()) {
			classes.add(List.of("`" + entry.getKey() + "`", String.format(Locale.ROOT, "%,d", entry.getValue())));
		}
		tables.markdown("shaping-held-heap-classes.md", List.of("Class", "Live bytes per held request"), classes);
	}

	static void throughput(Tables tables, int held, List<Round> rounds) {
		List<List<String>> rows = new ArrayList<>();
		List<List<String>> csv = new ArrayList<>();
		for (String state : List.of("fresh", "settled")) {
			double[] throughputRatios = new double[rounds.size()];
			double[] cpuRatios = new double[rounds.size()];
			for (int i = 0; i < rounds.size(); i++) {
				Round round = rounds.get(i);
				Sample none = sample(round.none(), state);
				Sample holding = sample(round.held(), state);
				throughputRatios[i] = holding.perSecond() / none.perSecond();
				cpuRatios[i] = holding.cpuMicrosPerRequest() / none.cpuMicrosPerRequest();
				rows.add(List.of(Integer.toString(round.round()), state, Tables.number(none.perSecond()),
						Tables.number(holding.perSecond()), ratio(throughputRatios[i]),
						Tables.number(none.cpuMicrosPerRequest()), Tables.number(holding.cpuMicrosPerRequest()),
						ratio(cpuRatios[i]), Long.toString(none.gcMillis()), Long.toString(holding.gcMillis())));
				csv.add(List.of(Integer.toString(round.round()), state, raw(none), raw(holding)));
			}
			rows.add(List.of("median", state, "", "", "**" + ratio(median(throughputRatios)) + "**", "", "",
					"**" + ratio(median(cpuRatios)) + "**", "", ""));
		}
		String holding = String.format(Locale.ROOT, "with %,d held", held);
		tables.markdown("shaping-throughput.md", List.of("Round", "Sample", "Unshaped route, none held (req/s)",
				holding + " (req/s)", "ratio", "CPU per request, none held (µs)", holding + " (µs)", "ratio",
				"Collecting, none held (ms)", holding + " (ms)"), rows);
		tables.csv("shaping-throughput.csv", List.of("round", "sample", "none_held_per_second",
				"none_held_cpu_us_per_request", "none_held_gc_ms", "held_per_second", "held_cpu_us_per_request",
				"held_gc_ms"), csv);
	}

	private static Sample sample(Phase phase, String state) {
		return state.equals("fresh") ? phase.fresh() : phase.settled();
	}

	private static String raw(Sample sample) {
		return Tables.raw(sample.perSecond()) + "," + Tables.raw(sample.cpuMicrosPerRequest()) + ","
				+ sample.gcMillis();
	}

	private static String ratio(double ratio) {
		return String.format(Locale.ROOT, "%.3f", ratio);
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return (sorted[(sorted.length - 1) / 2] + sorted[sorted.length / 2]) / 2;
	}

}
