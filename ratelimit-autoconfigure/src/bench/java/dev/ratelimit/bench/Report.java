package dev.ratelimit.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where a benchmark writes what it measured: a CSV of the raw figures, a Markdown table
 * for docs/benchmarks.md and charts, all in one directory ({@code bench.output}, the
 * repository's {@code docs/benchmarks} when run through Maven) so that a rerun
 * refreshes them together.
 */
public final class Report {

	private final Path directory;

	private Report(Path directory) {
		this.directory = directory;
	}

	/**
	 * The directory named by the {@code bench.output} system property, created if
	 * missing; {@code target/bench} when unset.
	 */
	public static Report fromSystemProperties() {
		Path directory = Path.of(System.getProperty("bench.output", "target/bench")).toAbsolutePath().normalize();
		try {
			Files.createDirectories(directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot create the report directory " + directory, ex);
		}
		return new Report(directory);
	}

	public Path file(String name) {
		return this.directory.resolve(name);
	}

	/**
	 * Write {@code lines} to {@code name} and say so on standard output.
	 */
	public void write(String name, List<String> lines) {
		Path file = file(name);
		try {
			Files.write(file, lines, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot write " + file, ex);
		}
		System.out.println("wrote " + file);
	}

	/**
	 * Write a Markdown table and print it.
	 */
	public void writeTable(String name, List<String> header, List<List<String>> rows) {
		List<String> lines = new ArrayList<>();
		lines.add(row(header));
		List<String> rule = new ArrayList<>();
		for (int i = 0; i < header.size(); i++) {
			rule.add((i == 0) ? "---" : "---:");
		}
		lines.add(row(rule));
		for (List<String> row : rows) {
			lines.add(row(row));
		}
		lines.forEach(System.out::println);
		write(name, lines);
	}

	private static String row(List<String> cells) {
		return "| " + String.join(" | ", cells) + " |";
	}

	/**
	 * A number for a table: no decimals from 100 on, one below, two below 10.
	 */
	public static String number(double value) {
		if (Double.isNaN(value)) {
			return "n/a";
		}
		double magnitude = Math.abs(value);
		String format = (magnitude >= 100) ? "%,.0f" : (magnitude >= 10) ? "%.1f" : "%.2f";
		return String.format(Locale.ROOT, format, value);
	}

	public static String percent(double fraction) {
		return String.format(Locale.ROOT, "%.2f %%", fraction * 100);
	}

	public static String csv(Object... cells) {
		List<String> text = new ArrayList<>();
		for (Object cell : cells) {
			text.add((cell instanceof Double d) ? String.format(Locale.ROOT, "%.4f", d) : String.valueOf(cell));
		}
		return String.join(",", text);
	}

}
