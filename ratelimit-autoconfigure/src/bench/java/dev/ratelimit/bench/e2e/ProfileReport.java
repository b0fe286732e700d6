package dev.ratelimit.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

import dev.ratelimit.bench.Report;

/**
 * Summarises the recordings of {@code e2e.sh --profile} (or {@code caffeine-keys.sh
 * --profile}) into a Markdown file: for each JFR recording (one client, 200,000
 * clients; or the routes named), where the gateway's CPU samples
 * fall (own time of the hottest methods; time under each of our methods and of the
 * libraries on the request path) and what it allocates (by class, and by the first of
 * our frames on the allocating stack); then the live heap per client, from the class
 * histograms taken before and after the 200,000 clients' buckets were created, when
 * taken.
 * <p>
 * Arguments: the profile directory, the number of clients, the report's file name, then
 * the recordings' names ({@code one-key} and {@code many-keys} when none): each
 * {@code NAME.jfr} beside wrk's output, {@code NAME-wrk.txt}.
 */
public final class ProfileReport {

	private static final int TOP = 15;

	private static final Pattern HISTOGRAM_LINE = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

	/**
	 * Frames of interest on the request path, by the package prefix that names them.
	 */
	private static final List<String> REQUEST_PATH = List.of("dev.ratelimit.", "com.github.benmanes.caffeine.",
			"io.micrometer.", "org.springframework.cloud.gateway.", "reactor.netty.", "reactor.core.",
			"io.netty.", "org.springframework.http.", "org.springframework.web.");

	private ProfileReport() {
	}

	public static void main(String[] args) throws IOException {
		Path directory = Path.of(args[0]);
		long clients = Long.parseLong(args[1]);
		List<String> lines = new ArrayList<>();
		List<String> recordings = (args.length > 3) ? List.of(args).subList(3, args.length)
				: List.of("one-key", "many-keys");
		for (String recording : recordings) {
			Path file = directory.resolve(recording + ".jfr");
			lines.addAll(summarise(recording, RecordingFile.readAllEvents(file),
					Files.readString(directory.resolve(recording + "-wrk.txt"))));
		}
		Path before = directory.resolve("histogram-before.txt");
		if (Files.exists(before)) {
			lines.addAll(heapPerClient(before, directory.resolve("histogram-after.txt"), clients));
		}
		lines.forEach(System.out::println);
		Report.fromSystemProperties().write(args[2], lines);
	}

	private static List<String> summarise(String name, List<RecordedEvent> events, String wrk) {
		Map<String, Long> self = new HashMap<>();
		Map<String, Long> inclusive = new HashMap<>();
		Map<String, Long> libraries = new HashMap<>();
		long samples = 0;
		Map<String, Long> allocatedByClass = new HashMap<>();
		Map<String, Long> allocatedBySite = new HashMap<>();
		long allocated = 0;
		long allocatedUnderOurs = 0;
		for (RecordedEvent event : events) {
			String type = event.getEventType().getName();
			RecordedStackTrace stack = event.getStackTrace();
			if (stack == null || stack.getFrames().isEmpty()) {
				continue;
			}
			List<RecordedFrame> frames = stack.getFrames();
			if (type.equals("jdk.ExecutionSample")) {
				samples++;
				self.merge(method(frames.get(0)), 1L, Long::sum);
				Set<String> seenMethods = new HashSet<>();
				Set<String> seenLibraries = new HashSet<>();
				for (RecordedFrame frame : frames) {
					String method = method(frame);
					if (method.startsWith("dev.ratelimit.") && seenMethods.add(method)) {
						inclusive.merge(method, 1L, Long::sum);
					}
					String library = library(method);
					if (library != null && seenLibraries.add(library)) {
						libraries.merge(library, 1L, Long::sum);
					}
				}
			}
			else if (type.equals("jdk.ObjectAllocationSample")) {
				long weight = event.getLong("weight");
				allocated += weight;
				allocatedByClass.merge(event.getClass("objectClass").getName(), weight, Long::sum);
				RecordedFrame ours = first(frames, (frame) -> method(frame).startsWith("dev.ratelimit."));
				if (ours != null) {
					allocatedUnderOurs += weight;
					allocatedBySite.merge(method(ours) + ":" + ours.getLineNumber() + " ← " + method(frames.get(0)),
							weight, Long::sum);
				}
			}
		}
		long requests = requests(wrk);
		List<String> lines = new ArrayList<>();
		lines.add("## " + name + ": " + requests + " requests in the recording (" + wrkSummary(wrk) + ")");
		lines.add("");
		lines.add("CPU samples: " + samples + ". Own time of the hottest methods:");
		lines.add("");
		lines.addAll(table("method", "samples", self, samples, null));
		lines.add("");
		lines.add("Samples with a frame of each library on the stack (a sample may count for several):");
		lines.add("");
		lines.addAll(table("library", "samples", libraries, samples, null));
		lines.add("");
		lines.add("Samples under each of our methods (inclusive):");
		lines.add("");
		lines.addAll(table("method", "samples", inclusive, samples, null));
		lines.add("");
		lines.add(String.format("Allocation: %,d MB sampled, %.0f bytes per request; under our frames %.0f bytes per request.",
				allocated >> 20, (double) allocated / requests, (double) allocatedUnderOurs / requests));
		lines.add("");
		lines.addAll(table("class", "bytes/request", allocatedByClass, allocated, requests));
		lines.add("");
		lines.add("Allocated under our code, by our first frame on the stack ← the allocating method:");
		lines.add("");
		lines.addAll(table("site", "bytes/request", allocatedBySite, allocated, requests));
		lines.add("");
		return lines;
	}

	private static List<String> table(String what, String unit, Map<String, Long> counts, long total, Long requests) {
		List<String> lines = new ArrayList<>();
		lines.add("| " + what + " | " + unit + " | share |");
		lines.add("| --- | ---: | ---: |");
		counts.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.limit(TOP)
			.forEach((entry) -> lines.add("| `" + entry.getKey() + "` | "
					+ ((requests != null) ? Report.number((double) entry.getValue() / requests)
							: Long.toString(entry.getValue()))
					+ " | " + Report.percent((double) entry.getValue() / total) + " |"));
		return lines;
	}

	private static RecordedFrame first(List<RecordedFrame> frames, Predicate<RecordedFrame> condition) {
		for (RecordedFrame frame : frames) {
			if (condition.test(frame)) {
				return frame;
			}
		}
		return null;
	}

	private static String method(RecordedFrame frame) {
		return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
	}

	private static String library(String method) {
		for (String prefix : REQUEST_PATH) {
			if (method.startsWith(prefix)) {
				return prefix.substring(0, prefix.length() - 1);
			}
		}
		return null;
	}

	private static long requests(String wrk) {
		Matcher matcher = Pattern.compile("(\\d+) requests in").matcher(wrk);
		return matcher.find() ? Long.parseLong(matcher.group(1)) : 1;
	}

	private static String wrkSummary(String wrk) {
		Matcher matcher = Pattern.compile("Requests/sec:\\s+(\\S+)").matcher(wrk);
		return matcher.find() ? matcher.group(1) + " requests/s under wrk" : "wrk output unreadable";
	}

	private static List<String> heapPerClient(Path before, Path after, long clients) throws IOException {
		Map<String, long[]> grown = new HashMap<>();
		Map<String, long[]> start = histogram(before);
		histogram(after).forEach((name, counts) -> {
			long[] base = start.getOrDefault(name, new long[2]);
			grown.put(name, new long[] { counts[0] - base[0], counts[1] - base[1] });
		});
		long total = grown.values().stream().mapToLong((counts) -> counts[1]).sum();
		List<String> lines = new ArrayList<>();
		lines.add(String.format("## Live heap per client: %.0f bytes (%,d clients' buckets, live heap grew %,d bytes)",
				(double) total / clients, clients, total));
		lines.add("");
		lines.add("| class | instances per client | bytes per client |");
		lines.add("| --- | ---: | ---: |");
		grown.entrySet()
			.stream()
			.filter((entry) -> entry.getValue()[1] >= clients)
			.sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
			.forEach((entry) -> lines.add("| `" + entry.getKey() + "` | "
					+ Report.number((double) entry.getValue()[0] / clients) + " | "
					+ Report.number((double) entry.getValue()[1] / clients) + " |"));
		lines.add("");
		return lines;
	}

	private static Map<String, long[]> histogram(Path file) throws IOException {
		Map<String, long[]> counts = new HashMap<>();
		for (String line : Files.readAllLines(file)) {
			Matcher matcher = HISTOGRAM_LINE.matcher(line);
			if (matcher.find()) {
				counts.merge(matcher.group(3),
						new long[] { Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)) },
						(a, b) -> new long[] { a[0] + b[0], a[1] + b[1] });
			}
		}
		return counts;
	}

}
