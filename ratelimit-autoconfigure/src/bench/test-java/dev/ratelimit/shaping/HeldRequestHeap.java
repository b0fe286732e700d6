package dev.ratelimit.shaping;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * What a held request costs the gateway's heap: the live heap with {@code n} requests
 * held, less the live heap just before, per request; and, as a control, the same with
 * {@code n} idle keep-alive connections that each had one request answered, which
 * tells the connection's share from the hold's. The gateway runs in this JVM, the
 * clients in another ({@link HeldConnections}).
 */
final class HeldRequestHeap {

	private HeldRequestHeap() {
	}

	/**
	 * @param held the requests to hold, each count in turn
	 * @return one row per count, and the classes that grew, per held request, for the
	 * largest count
	 */
	static Result measure(Gateway gateway, int... held) {
		List<Row> rows = new ArrayList<>();
		Map<String, Long> growth = Map.of();
		for (int count : held) {
			Snapshot beforeIdle = Snapshot.take();
			Snapshot idle;
			try (HeldConnections connections = HeldConnections.open(gateway.port(), HeldRoute.OPEN, count, false)) {
				idle = Snapshot.take();
			}
			Snapshot beforeHeld = Snapshot.take();
			Snapshot holding;
			try (HeldConnections connections = HeldRoute.hold(gateway, count)) {
				holding = Snapshot.take();
			}
			HeldRoute.awaitReleased(gateway);
			rows.add(new Row(count, (idle.live - beforeIdle.live) / (double) count,
					(holding.live - beforeHeld.live) / (double) count, (holding.used - beforeHeld.used) / (double) count));
			growth = beforeHeld.heap.growthTo(holding.heap);
			growth.replaceAll((name, bytes) -> bytes / count);
		}
		return new Result(rows, top(growth, 15));
	}

	private static List<Map.Entry<String, Long>> top(Map<String, Long> growth, int count) {
		return growth.entrySet()
			.stream()
			.sorted(Comparator.comparing((Map.Entry<String, Long> entry) -> -Math.abs(entry.getValue())))
			.limit(count)
			.toList();
	}

	/**
	 * @param held the requests held, as many as the control's idle connections
	 * @param perIdleConnection live bytes per idle keep-alive connection
	 * @param perHeldRequest live bytes per held request, its connection included
	 * @param perHeldRequestUsed the same from the heap's used bytes after the
	 * histogram's full collection ({@code MemoryMXBean}), region slack included
	 */
	record Row(int held, double perIdleConnection, double perHeldRequest, double perHeldRequestUsed) {
	}

	record Result(List<Row> rows, List<Map.Entry<String, Long>> largestGrowth) {
	}

	/**
	 * The live heap by class and the heap's used bytes right after its full collection,
	 * once settled: the gateway goes on closing connections and writing responses for a
	 * while after the clients are done, so the heap is taken again, a second apart, until
	 * two readings agree within {@value #SETTLED_BYTES} bytes.
	 */
	private record Snapshot(LiveHeap heap, long live, long used) {

		private static final long SETTLED_BYTES = 256 * 1024;

		private static final int MOST_READINGS = 15;

		static Snapshot take() {
			Snapshot last = read();
			for (int reading = 1; reading < MOST_READINGS; reading++) {
				Pause.of(Duration.ofSeconds(1));
				Snapshot next = read();
				if (Math.abs(next.live - last.live) < SETTLED_BYTES) {
					return next;
				}
				last = next;
			}
			throw new IllegalStateException("the live heap did not settle in " + MOST_READINGS + " readings");
		}

		private static Snapshot read() {
			LiveHeap heap = LiveHeap.take();
			return new Snapshot(heap, heap.totalBytes(),
					ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
		}

	}

}
