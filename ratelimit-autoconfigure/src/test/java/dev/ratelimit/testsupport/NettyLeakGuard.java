package dev.ratelimit.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakTracker;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class after which Netty finds a buffer that was dropped without being
 * released: a response body our code wrote or read and never freed, or one a test never
 * read. Registered for every test class of the module (META-INF/services, with
 * {@code junit-platform.properties} turning extension detection on).
 * <p>
 * Netty tells a leak only when the garbage collector has found the buffer unreachable
 * and Netty next tracks a new buffer, and by default it tracks one buffer in 128. So the
 * guard has Netty track every buffer, with where it was allocated (Netty's "paranoid"
 * level, which also records every later access, made the suite a fifth slower), and
 * after each class drops one marked buffer of its own, then collects garbage and has
 * Netty look until that buffer is reported: every buffer that was unreachable by then
 * has been reported with it. A buffer the server under test dropped is unreachable once
 * its exchange ends, so the class that leaked it fails. A buffer something still holds
 * is reported after a later class, which the message allows for, or not before the JVM
 * exits: an unread body a test client's pooled connection keeps. Leaks go to the
 * failure rather than to Netty's error log, where the guard's own buffer would be
 * logged after every class.
 * <p>
 * Netty loads the replacement detector from the system class loader, so a class loader
 * that loads Netty again gets Netty's own detector (logging that the guard's "does not
 * inherit from ResourceLeakDetector") and its leaks go untold: a test that starts an
 * application in a class loader of its own lets it load Netty from the test's, and
 * passes it through {@link #requireGuarded(ClassLoader)}.
 */
public final class NettyLeakGuard implements AfterAllCallback {

	private static final long PATIENCE_SECONDS = 10;

	private static final Queue<String> REPORTED = new ConcurrentLinkedQueue<>();

	private static final AtomicLong MARKERS = new AtomicLong();

	/**
	 * Buffers Netty has tracked, and how many it had when the last check ended: a class
	 * that allocated none has nothing to check, and skips collecting garbage.
	 */
	private static final AtomicLong TRACKED = new AtomicLong();

	private static long trackedWhenChecked;

	private static volatile boolean detectorInstalled;

	/**
	 * The hint the next buffer allocated on this thread is marked with.
	 */
	private static final ThreadLocal<String> MARK = new ThreadLocal<>();

	static {
		// Read once, when Netty creates its buffers' detector: no buffer exists before the
		// first test class runs, and this class is loaded before it.
		System.setProperty("io.netty.customResourceLeakDetector", RecordingLeakDetector.class.getName());
		if (!ResourceLeakDetector.isEnabled()) {
			ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
		}
		ByteBufAllocator.DEFAULT.buffer(1).release();
		if (!detectorInstalled) {
			throw new IllegalStateException("Netty created its buffers' leak detector before " + NettyLeakGuard.class
					+ " could replace it: leaks cannot be told");
		}
		trackedWhenChecked = TRACKED.get();
	}

	@Override
	public void afterAll(ExtensionContext context) throws InterruptedException {
		List<String> leaks = collectLeaks();
		if (!leaks.isEmpty()) {
			throw new AssertionError(leaks.size() + " Netty buffer(s) were dropped without being released, found after "
					+ context.getDisplayName() + " (or an earlier class, if something held them until now); "
					+ "release every buffer, and read or release every response body:\n" + String.join("\n", leaks));
		}
	}

	/**
	 * The leaks Netty reports, from the buffers unreachable now, that no call before
	 * reported.
	 */
	public static List<String> collectLeaks() throws InterruptedException {
		if (TRACKED.get() == trackedWhenChecked) {
			return List.of();
		}
		String marker = "leak guard's own buffer " + MARKERS.incrementAndGet() + ".";
		dropUnreleased(marker);
		List<String> leaks = new ArrayList<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
		boolean markerReported = false;
		while (!markerReported) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(
						"Netty did not report a buffer dropped without release within " + PATIENCE_SECONDS + " s");
			}
			System.gc();
			// Netty reads the collector's queue of unreachable buffers when it tracks another.
			ByteBufAllocator.DEFAULT.buffer(1).release();
			for (String leak = REPORTED.poll(); leak != null; leak = REPORTED.poll()) {
				if (leak.contains(marker)) {
					markerReported = true;
				}
				else {
					leaks.add(leak);
				}
			}
			if (!markerReported) {
				Thread.sleep(5);
			}
		}
		trackedWhenChecked = TRACKED.get();
		return leaks;
	}

	/**
	 * {@code loader}, once it is known to load the Netty whose buffers the guard watches;
	 * fails where it loads a Netty of its own, whose leaks the guard could not tell.
	 */
	public static <L extends ClassLoader> L requireGuarded(L loader) {
		Class<?> detector;
		try {
			detector = Class.forName(ResourceLeakDetector.class.getName(), false, loader);
		}
		catch (ClassNotFoundException ex) {
			return loader;
		}
		if (detector != ResourceLeakDetector.class) {
			throw new IllegalStateException(loader + " loads a Netty of its own, whose leak detector " + NettyLeakGuard.class
					+ " cannot replace: have it load io.netty from " + ResourceLeakDetector.class.getClassLoader());
		}
		return loader;
	}

	/**
	 * Allocate a buffer marked with {@code hint}, which a report of its leak names, and
	 * let go of it unreleased: in a method of its own, so that no local variable keeps it
	 * reachable.
	 */
	public static void dropUnreleased(String hint) {
		allocateMarked(hint);
	}

	/**
	 * A buffer marked with {@code hint}, which a report of its leak names. A direct
	 * buffer, since Netty does not track unpooled heap buffers, which the collector frees.
	 */
	public static ByteBuf allocateMarked(String hint) {
		MARK.set(hint);
		try {
			return Unpooled.directBuffer(1);
		}
		finally {
			MARK.remove();
		}
	}

	/**
	 * Netty's leak detector, reporting to the guard instead of to Netty's log; Netty
	 * creates it by name ({@code io.netty.customResourceLeakDetector}).
	 */
	public static final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {

		/**
		 * Tracks every buffer, whatever {@code samplingInterval} says.
		 */
		public RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
			super(resourceType, 1);
			detectorInstalled = true;
		}

		/**
		 * The constructor Netty looks for first; {@code maxActive} is one Netty itself
		 * no longer reads.
		 */
		public RecordingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
			this(resourceType, samplingInterval);
		}

		@Override
		public ResourceLeakTracker<T> track(T resource) {
			TRACKED.incrementAndGet();
			return super.track(resource);
		}

		@Override
		protected Object getInitialHint(String resourceType) {
			return MARK.get();
		}

		/**
		 * Whatever the log's level: a leak is a failure, not a log line.
		 */
		@Override
		protected boolean needReport() {
			return true;
		}

		@Override
		protected void reportTracedLeak(String resourceType, String records) {
			REPORTED.add(resourceType + " leaked:" + records);
		}

		@Override
		protected void reportUntracedLeak(String resourceType) {
			REPORTED.add(resourceType + " leaked, with no record of where it was used");
		}

	}

}
