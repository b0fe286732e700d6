package dev.ratelimit.shaping;

import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

/**
 * When a client sends its requests: offsets from the run's start, in order, and how
 * long the run lasts (the last request's wait included).
 *
 * @param name the name of the run's files
 * @param title what the traffic is, for tables and charts
 * @param offsetsNanos each request's offset from the start
 * @param lengthNanos the run's length
 */
record Traffic(String name, String title, long[] offsetsNanos, long lengthNanos) {

	/**
	 * {@code size} requests at once, {@code bursts} times, {@code period} apart; the run
	 * lasts until {@code tail} after the last burst.
	 */
	static Traffic bursts(int bursts, int size, Duration period, Duration tail) {
		long[] offsets = new long[bursts * size];
		for (int i = 0; i < offsets.length; i++) {
			offsets[i] = (i / size) * period.toNanos();
		}
		return new Traffic("bursts", bursts + " bursts of " + size + " at once, " + period.toSeconds() + " s apart",
				offsets, (bursts - 1) * period.toNanos() + tail.toNanos());
	}

	/**
	 * A Poisson stream: exponential gaps of mean {@code 1 / ratePerSecond}, for
	 * {@code length}; the run lasts until {@code tail} after it. Seeded, so that every
	 * run sends the same stream.
	 */
	static Traffic poisson(double ratePerSecond, Duration length, Duration tail, long seed) {
		Random random = new Random(seed);
		long[] offsets = new long[(int) (ratePerSecond * length.toSeconds() * 2)];
		int count = 0;
		double at = 0;
		while (true) {
			at += -Math.log(1 - random.nextDouble()) / ratePerSecond;
			if (at >= length.toNanos() / 1e9) {
				break;
			}
			offsets[count++] = Math.round(at * 1e9);
		}
		return new Traffic("poisson", "Poisson, " + Math.round(ratePerSecond) + "/s for " + length.toSeconds() + " s",
				Arrays.copyOf(offsets, count), length.toNanos() + tail.toNanos());
	}

}
