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
 * The chart of src/bench/caffeine-keys.sh's runs ({@code caffeine-keys.csv}: round,
 * gateway, route, requests, requests per second, ...): per round and gateway, the
 * limited route's requests per second as a share of the control route's in the same JVM
 * and round. Arguments: the runs file, then the chart's file name.
 */
public final class CaffeineKeysChart {

	private static final String CONTROL = "open";

	private static final String LIMITED = "windowed";

	/**
	 * The script's own gateways; another build's keeps the label it was given.
	 */
	private static final Map<String, String> GATEWAYS = Map.of("this", "this build", "unobserved",
			"this build, decisions not observed");

	private CaffeineKeysChart() {
	}

	public static void main(String[] args) throws IOException {
		List<String> lines = Files.readAllLines(Path.of(args[0]));
		Map<String, Double> throughput = new LinkedHashMap<>();
		List<String> rounds = new ArrayList<>();
		List<String> gateways = new ArrayList<>();
		for (String line : lines.subList(1, lines.size())) {
			String[] cells = line.split(",");
			throughput.put(cells[0] + "," + cells[1] + "," + cells[2], Double.parseDouble(cells[4]));
			if (!rounds.contains(cells[0])) {
				rounds.add(cells[0]);
			}
			if (!gateways.contains(cells[1])) {
				gateways.add(cells[1]);
			}
		}
		Map<String, List<Double>> shares = new LinkedHashMap<>();
		for (String gateway : gateways) {
			List<Double> perRound = new ArrayList<>();
			for (String round : rounds) {
				Double limited = throughput.get(round + "," + gateway + "," + LIMITED);
				Double control = throughput.get(round + "," + gateway + "," + CONTROL);
				perRound.add((limited != null && control != null) ? 100 * limited / control : Double.NaN);
			}
			shares.put(GATEWAYS.getOrDefault(gateway, gateway), perRound);
		}
		Charts.bars(Report.fromSystemProperties().file(args[1]),
				"Limited route's throughput ÷ the control route's, same JVM and round (target 97 %)", "limited ÷ control, %",
				rounds.stream().map((round) -> "round " + round).toList(), shares, false);
	}

}
