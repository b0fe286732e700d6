package dev.ratelimit.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;

/**
 * docs/grafana/ratelimit-dashboard.json as its tests read it: its panels, the row each is
 * under, and the metrics the PromQL of each panel's queries names.
 */
final class GrafanaDashboard {

	static final Path FILE = Path.of("../docs/grafana/ratelimit-dashboard.json");

	/**
	 * The row of the panels over the meters of the Redis-backed stores, which an
	 * application on the caffeine store alone does not have.
	 */
	static final String REDIS_ROW = "Redis stores (redis, hybrid)";

	/**
	 * Quoted strings, label matchers, range and subquery selectors, Grafana's variables,
	 * and the label lists of grouping and vector matching: nothing in them names a metric.
	 */
	private static final Pattern NOT_NAMES = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'"
			+ "|\\{[^}]*}|\\[[^\\]]*]|\\$\\{?\\w+}?"
			+ "|\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");

	/**
	 * An identifier not preceded by a word character or a dot (so not the exponent of a
	 * number), and whether a parenthesis follows it (a function).
	 */
	private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.:])([a-zA-Z_:][a-zA-Z0-9_:]*)(\\s*\\()?");

	private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
			"ignoring", "group_left", "group_right", "inf", "nan", "Inf", "NaN");

	private static final Pattern SAMPLE_NAME = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]");

	private final DocumentContext json;

	private GrafanaDashboard(String json) {
		this.json = JsonPath.parse(json);
	}

	static GrafanaDashboard load() {
		try {
			return new GrafanaDashboard(Files.readString(FILE));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	DocumentContext json() {
		return this.json;
	}

	/**
	 * The panels that are not rows, each with the title of the row it is under.
	 */
	List<Panel> panels() {
		List<Map<String, Object>> all = this.json.read("$.panels");
		List<Panel> panels = new ArrayList<>();
		String row = "";
		for (Map<String, Object> panel : all) {
			if ("row".equals(panel.get("type"))) {
				row = (String) panel.get("title");
			}
			else {
				panels.add(new Panel(row, panel));
			}
		}
		return panels;
	}

	/**
	 * The metrics the queries of the panels name, but those under {@code excludedRows}.
	 */
	Set<String> queriedMetrics(String... excludedRows) {
		Set<String> names = new TreeSet<>();
		for (Panel panel : panels()) {
			if (!List.of(excludedRows).contains(panel.row())) {
				panel.expressions().forEach((expr) -> names.addAll(metricNames(expr)));
			}
		}
		return names;
	}

	/**
	 * The metric names a PromQL expression selects.
	 */
	static Set<String> metricNames(String expr) {
		String names = NOT_NAMES.matcher(expr).replaceAll(" ");
		Set<String> found = new TreeSet<>();
		Matcher identifier = IDENTIFIER.matcher(names);
		while (identifier.find()) {
			String name = identifier.group(1);
			if (identifier.group(2) == null && !KEYWORDS.contains(name)) {
				found.add(name);
			}
		}
		return found;
	}

	/**
	 * The names of the samples in a Prometheus text scrape.
	 */
	static Set<String> sampleNames(String scrape) {
		Set<String> names = new TreeSet<>();
		for (String line : scrape.split("\n")) {
			Matcher name = SAMPLE_NAME.matcher(line);
			if (name.find()) {
				names.add(name.group(1));
			}
		}
		return names;
	}

	record Panel(String row, Map<String, Object> json) {

		String title() {
			return (String) this.json.get("title");
		}

		@SuppressWarnings("unchecked")
		List<Map<String, Object>> targets() {
			Object targets = this.json.get("targets");
			return (targets instanceof List<?> list) ? (List<Map<String, Object>>) list : List.of();
		}

		List<String> expressions() {
			return targets().stream().map((target) -> (String) target.get("expr")).toList();
		}

	}

}
