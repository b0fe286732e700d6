package dev.ratelimit.shaping;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes a measurement's Markdown tables and CSV files into {@code bench.output} (the
 * repository's {@code docs/benchmarks} through Maven), as the other benchmarks do, and
 * prints the tables.
 */
final class Tables {

	private final Path directory;

	Tables() {
		this.directory = Path.of(System.getProperty("bench.output", "target/bench")).toAbsolutePath().normalize();
		try {
			Files.createDirectories(this.directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot create the report directory " + this.directory, ex);
		}
	}

	Path file(String name) {
		return this.directory.resolve(name);
	}

	void markdown(String name, List<String> header, List<List<String>> rows) {
		List<String> lines = new ArrayList<>();
		lines.add(row(header));
		List<String> rule = new ArrayList<>();
		for (int i = 0; i < header.size(); i++) {
			rule.add((i == 0) ? "---" : "---:");
		}
		lines.add(row(rule));
		rows.forEach((row) -> lines.add(row(row)));
		lines.forEach(System.out::println);
		write(name, lines);
	}

	void csv(String name, List<String> header, List<List<String>> rows) {
		List<String> lines = new ArrayList<>();
		lines.add(String.join(",", header));
		rows.forEach((row) -> lines.add(String.join(",", row)));
		write(name, lines);
	}

	private void write(String name, List<String> lines) {
		Path file = file(name);
		try {
			Files.write(file, lines, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot write " + file, ex);
		}
		System.out.println("wrote " + file);
	}

	private static String row(List<String> cells) {
		return "| " + String.join(" | ", cells) + " |";
	}

	/**
	 * A number for a table: no decimals from 100 on, one below, two below 10.
	 */
	static String number(double value) {
		if (Double.isNaN(value)) {
			return "n/a";
		}
		double magnitude = Math.abs(value);
		String format = (magnitude >= 100) ? "%,.0f" : (magnitude >= 10) ? "%.1f" : "%.2f";
		return String.format(Locale.ROOT, format, value);
	}

	static String raw(double value) {
		return String.format(Locale.ROOT, "%.4f", value);
	}

}
