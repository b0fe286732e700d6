package dev.ratelimit.bench.memory;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.ObjectName;

/**
 * The live objects on the heap per class, as {@code jcmd <pid> GC.class_histogram}
 * reports them: taking it runs a full GC first, so only reachable objects count.
 *
 * @param bytesByClass shallow bytes of all live instances, per class name
 * @param instancesByClass live instances per class name
 */
public record HeapHistogram(Map<String, Long> bytesByClass, Map<String, Long> instancesByClass) {

	private static final Pattern LINE = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

	public static HeapHistogram take() {
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
		Map<String, Long> instances = new HashMap<>();
		for (String line : text.split("\n")) {
			Matcher matcher = LINE.matcher(line);
			if (matcher.find()) {
				instances.merge(matcher.group(3), Long.parseLong(matcher.group(1)), Long::sum);
				bytes.merge(matcher.group(3), Long.parseLong(matcher.group(2)), Long::sum);
			}
		}
		return new HeapHistogram(bytes, instances);
	}

	public long totalBytes() {
		return this.bytesByClass.values().stream().mapToLong(Long::longValue).sum();
	}

	/**
	 * Bytes per class that {@code later} holds beyond this histogram.
	 */
	public Map<String, Long> growthTo(HeapHistogram later) {
		Map<String, Long> growth = new HashMap<>();
		later.bytesByClass.forEach((name, bytes) -> {
			long delta = bytes - this.bytesByClass.getOrDefault(name, 0L);
			if (delta != 0) {
				growth.put(name, delta);
			}
		});
		return growth;
	}

	/**
	 * Instances per class that {@code later} holds beyond this histogram.
	 */
	long instanceGrowth(HeapHistogram later, String name) {
		return later.instancesByClass.getOrDefault(name, 0L) - this.instancesByClass.getOrDefault(name, 0L);
	}

}
