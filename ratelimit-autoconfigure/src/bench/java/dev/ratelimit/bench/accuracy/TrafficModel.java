package dev.ratelimit.bench.accuracy;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * One client's request instants over a simulated run, in nanoseconds from 0, sorted;
 * seeded, so every run replays the same traffic.
 */
interface TrafficModel {

	String name();

	long[] arrivals(long limit, long windowNanos, long durationNanos);

	/**
	 * Independent arrivals at {@code multiple} times the limit's average rate.
	 */
	static TrafficModel poisson(double multiple, long seed) {
		return new TrafficModel() {

			@Override
			public String name() {
				return "Poisson " + ((multiple == Math.rint(multiple)) ? Long.toString((long) multiple)
						: Double.toString(multiple)) + "x";
			}

			@Override
			public long[] arrivals(long limit, long windowNanos, long durationNanos) {
				Arrivals arrivals = new Arrivals();
				arrivals.poisson(new SplittableRandom(seed), multiple * limit / windowNanos, 0, durationNanos);
				return arrivals.toArray();
			}

		};
	}

	/**
	 * Bursts at 4x the limit's rate for half a window, then silence for a window and a
	 * half: on average the limit's rate. Each burst straddles a window boundary.
	 */
	static TrafficModel onOff(long seed) {
		return new TrafficModel() {

			@Override
			public String name() {
				return "on/off bursts";
			}

			@Override
			public long[] arrivals(long limit, long windowNanos, long durationNanos) {
				SplittableRandom random = new SplittableRandom(seed);
				Arrivals arrivals = new Arrivals();
				for (long cycle = 0; cycle + 2 * windowNanos <= durationNanos; cycle += 2 * windowNanos) {
					long on = cycle + windowNanos * 3 / 4;
					arrivals.poisson(random, 4.0 * limit / windowNanos, on, on + windowNanos / 2);
				}
				return arrivals.toArray();
			}

		};
	}

	/**
	 * The limit's worth of requests in the last hundredth of a window and again in the
	 * first hundredth of the next, every third window: what a client exploiting fixed
	 * windows sends.
	 */
	static TrafficModel boundaryAttack() {
		return new TrafficModel() {

			@Override
			public String name() {
				return "boundary attack";
			}

			@Override
			public long[] arrivals(long limit, long windowNanos, long durationNanos) {
				Arrivals arrivals = new Arrivals();
				long slice = windowNanos / 100;
				for (long boundary = windowNanos; boundary + slice <= durationNanos; boundary += 3 * windowNanos) {
					for (long i = 0; i < 2 * limit; i++) {
						arrivals.add(boundary - slice + i * slice / limit);
					}
				}
				return arrivals.toArray();
			}

		};
	}

	/**
	 * A growable, sorted list of instants.
	 */
	final class Arrivals {

		private long[] instants = new long[1024];

		private int size;

		void add(long instant) {
			if (this.size == this.instants.length) {
				this.instants = Arrays.copyOf(this.instants, this.size * 2);
			}
			this.instants[this.size++] = instant;
		}

		/**
		 * Poisson arrivals of {@code perNano} requests per nanosecond in
		 * {@code [from, to)}.
		 */
		void poisson(SplittableRandom random, double perNano, long from, long to) {
			double at = from;
			while (true) {
				at += -Math.log(1 - random.nextDouble()) / perNano;
				if (at >= to) {
					return;
				}
				add((long) at);
			}
		}

		long[] toArray() {
			return Arrays.copyOf(this.instants, this.size);
		}

	}

}
