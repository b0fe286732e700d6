package dev.ratelimit.shaping;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.ObjectName;

/**
 * The live objects on this JVM's heap per class, as {@code jcmd <pid>
 * GC.class_histogram} reports them: it runs a full GC first, so only reachable objects
 * count, byte for byte (no region or allocation-buffer slack).
 *
 * @param bytesByClass shallow bytes of all live instances, per class name
 */
record LiveHeap(Map<String, Long> bytesByClass) {

	private static final Pattern LINE = Pattern.compile("^\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+(\\S+)");

	static LiveHeap take() {
		String text;
		try {
			text = (String) ManagementFactory.getPlatformMBeanServer()
				.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
						new Object[] { new String[0] }, new String[] { String[].class.getName() });
		}
		catch (Exception ex) {
			throw new IllegalStateException("cannot take a class histogram of this JVM", ex);
		}
		Map<String, Long> bytes = new HashMap<>();
		for (String line : text.split("\n")) {
			Matcher matcher = LINE.matcher(line);
			if (matcher.find()) {
				bytes.merge(matcher.group(2), Long.parseLong(matcher.group(1)), Long::sum);
			}
		}
		return new LiveHeap(bytes);
	}

	long totalBytes() {
		return this.bytesByClass.values().stream().mapToLong(Long::longValue).sum();
	}

	/**
	 * Bytes per class that {@code later} holds beyond this heap.
	 */
	Map<String, Long> growthTo(LiveHeap later) {
		Map<String, Long> growth = new HashMap<>();
		later.bytesByClass.forEach((name, bytes) -> {
			long delta = bytes - this.bytesByClass.getOrDefault(name, 0L);
			if (delta != 0) {
				growth.put(name, delta);
			}
		});
		return growth;
	}

}
