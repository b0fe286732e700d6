package dev.ratelimit.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Local decisions read time from the monotonic clock only, so that a wall-clock jump
 * (NTP stepping the clock, an operator setting it, a leap second) neither refills nor
 * drains a bucket, opens or closes a window, expires a bucket or moves a circuit
 * breaker. Checked on the compiled classes: none of them reads the wall clock but the
 * production clock, once, to place its readings on the epoch's timeline (so that windows
 * align to UTC as they do on Redis), after which it advances with
 * {@link System#nanoTime()} alone. (The Redis scripts read the Redis server's clock,
 * {@code TIME}, which every gateway node shares.)
 */
class MonotonicTimeTests {

	/**
	 * Owners and names of the methods that read the wall clock.
	 */
	private static final Set<String> WALL_CLOCK = Set.of("java/lang/System.currentTimeMillis",
			"java/time/Instant.now", "java/time/Clock.systemUTC", "java/time/Clock.systemDefaultZone",
			"java/time/Clock.millis", "java/time/Clock.instant", "java/time/LocalDateTime.now",
			"java/time/ZonedDateTime.now", "java/time/OffsetDateTime.now", "java/time/LocalTime.now",
			"java/time/LocalDate.now", "java/util/Date.<init>", "java/util/Calendar.getInstance");

	/**
	 * The one read of the wall clock: the production clock's anchor on the epoch.
	 */
	private static final String ANCHOR = "dev/ratelimit/support/EpochAnchoredClock.system calls java/time/Instant.now";

	@Test
	void theProductionClockAdvancesWithTheMonotonicNanoTime() throws InterruptedException {
		long firstBefore = System.nanoTime();
		long first = MonotonicClock.SYSTEM.nanoTime();
		long firstAfter = System.nanoTime();
		Thread.sleep(20);
		long secondBefore = System.nanoTime();
		long second = MonotonicClock.SYSTEM.nanoTime();
		long secondAfter = System.nanoTime();
		// Bracketed by nanoTime on both sides: exact bounds, whatever the machine's speed.
		assertThat(second - first).isBetween(secondBefore - firstAfter, secondAfter - firstBefore);
		// On the epoch's timeline, as the wall clock was when the clock was anchored.
		assertThat(first / 1_000_000).isCloseTo(System.currentTimeMillis(), within(60_000L));
	}

	@Test
	void noClassOfTheLimiterReadsTheWallClock() throws IOException, URISyntaxException {
		Path classes = Path.of(MonotonicClock.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		List<String> readers = new ArrayList<>();
		int scanned = 0;
		try (Stream<Path> files = Files.walk(classes.resolve("dev/ratelimit"))) {
			for (Path file : (Iterable<Path>) files.filter((path) -> path.toString().endsWith(".class"))::iterator) {
				readers.addAll(wallClockCalls(file));
				scanned++;
			}
		}
		assertThat(scanned).as("classes scanned").isGreaterThan(50);
		assertThat(readers).containsExactly(ANCHOR);
	}

	private static List<String> wallClockCalls(Path classFile) {
		List<String> calls = new ArrayList<>();
		try (InputStream in = Files.newInputStream(classFile)) {
			ClassReader reader = new ClassReader(in);
			reader.accept(new ClassVisitor(Opcodes.ASM9) {

				@Override
				public MethodVisitor visitMethod(int access, String method, String descriptor, String signature,
						String[] exceptions) {
					return new MethodVisitor(Opcodes.ASM9) {

						@Override
						public void visitMethodInsn(int opcode, String owner, String name, String calledDescriptor,
								boolean isInterface) {
							if (WALL_CLOCK.contains(owner + "." + name)) {
								calls.add(reader.getClassName() + "." + method + " calls " + owner + "." + name);
							}
						}

					};
				}

			}, ClassReader.SKIP_DEBUG);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return calls;
	}

}
