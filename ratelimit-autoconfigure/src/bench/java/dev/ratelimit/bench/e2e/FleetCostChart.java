package dev.ratelimit.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.bench.Charts;
import dev.ratelimit.bench.Report;

/**
 * The charts of src/bench/fleet-cost.sh's runs ({@code fleet-cost.csv}: variant, round,
 * requests, admitted, bound, commands): Redis commands per request, and admissions as a
 * share of the bound, per round and variant. Arguments: the runs file, then the name
 * the charts' files start with ({@code fleet-cost}, or {@code fleet-cost-cluster} for a
 * copy kept beside it).
 */
public final class FleetCostChart {

	private static final Map<String, String> VARIANTS = Map.of("shared", "shared calls and local refusals", "each",
			"one call per request");

	private FleetCostChart() {
	}

	public static void main(String[] args) throws IOException {
		List<String> lines = Files.readAllLines(Path.of(args[0]));
		List<String> rounds = new ArrayList<>();
		Map<String, List<Double>> commands = new LinkedHashMap<>();
		Map<String, List<Double>> admitted = new LinkedHashMap<>();
		for (String line : lines.subList(1, lines.size())) {
			String[] cells = line.split(",");
			String round = "round " + cells[1];
			if (!rounds.contains(round)) {
				rounds.add(round);
			}
			String variant = VARIANTS.getOrDefault(cells[0], cells[0]);
			double requests = Double.parseDouble(cells[2]);
			commands.computeIfAbsent(variant, (any) -> new ArrayList<>()).add(Double.parseDouble(cells[5]) / requests);
			admitted.computeIfAbsent(variant, (any) -> new ArrayList<>())
				.add(100 * Double.parseDouble(cells[3]) / Double.parseDouble(cells[4]));
		}
		Report report = Report.fromSystemProperties();
		Charts.bars(report.file(args[1] + "-commands.png"),
				"Redis commands per request, two gateways on one hot bucket (lower is better; target 0.25)",
				"commands per request", rounds, commands, true);
		Charts.bars(report.file(args[1] + "-admitted.png"),
				"Admitted, as a share of capacity + refill over the run (never above 100 %)", "admitted ÷ bound, %",
				rounds, admitted, false);
	}

}
