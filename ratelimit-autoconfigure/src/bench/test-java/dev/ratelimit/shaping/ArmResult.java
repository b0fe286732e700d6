package dev.ratelimit.shaping;

import java.util.Arrays;
import java.util.List;

import dev.ratelimit.shaping.LoadClient.Sent;

/**
 * What one arm of a run did, seen from the client and from the upstream.
 *
 * @param arm the arm's name
 * @param sent requests sent
 * @param forwarded requests answered 200, each of which reached the upstream
 * @param refused requests answered 429
 * @param other requests answered otherwise (503 when the node's holds are full) or not
 * at all
 * @param held requests the gateways decided to hold
 * @param mostInWindow the most requests that reached the upstream within any
 * {@value #WINDOW_MILLIS} ms
 * @param smallestGapMillis the shortest time between two consecutive arrivals
 * @param waitMillis percentiles (p50, p90, p99, max) of a forwarded request's time from
 * the client's send to its arrival upstream: the hold, and the gateway's own latency
 * @param longestDecidedMillis the longest hold the gateways decided
 * @param bins arrivals per {@value #BIN_MILLIS} ms from the run's start
 */
record ArmResult(String arm, int sent, int forwarded, int refused, int other, long held, int mostInWindow,
		double smallestGapMillis, double[] waitMillis, double longestDecidedMillis, int[] bins) {

	static final int WINDOW_MILLIS = 100;

	static final int BIN_MILLIS = 100;

	static final double[] PERCENTILES = { 0.50, 0.90, 0.99, 1.0 };

	/**
	 * @param first the arm's first request; its others follow every {@code stride}
	 * @param holds what the gateways decided for the arm's policy
	 */
	static ArmResult of(String arm, Sent sent, ArrivalUpstream upstream, int first, int stride, long lengthNanos,
			Holds holds) {
		int count = 0;
		int forwarded = 0;
		int refused = 0;
		int other = 0;
		int arrived = 0;
		long[] arrivals = new long[sent.statuses().length / stride + 1];
		long[] waits = new long[arrivals.length];
		for (int request = first; request < sent.statuses().length; request += stride) {
			count++;
			int status = sent.statuses()[request];
			Long arrival = upstream.arrival(request);
			if (status == 200) {
				forwarded++;
			}
			else if (status == 429) {
				refused++;
			}
			else {
				other++;
			}
			if (arrival != null) {
				arrivals[arrived] = arrival - sent.startNanos();
				waits[arrived++] = arrival - sent.sentNanos()[request];
			}
		}
		if (arrived != forwarded) {
			throw new IllegalStateException(arm + ": " + forwarded + " answered 200 but " + arrived
					+ " reached the upstream");
		}
		long[] sorted = Arrays.copyOf(arrivals, arrived);
		Arrays.sort(sorted);
		long[] sortedWaits = Arrays.copyOf(waits, arrived);
		Arrays.sort(sortedWaits);
		double[] waitMillis = new double[PERCENTILES.length];
		for (int i = 0; i < PERCENTILES.length; i++) {
			waitMillis[i] = (arrived == 0) ? Double.NaN : at(sortedWaits, PERCENTILES[i]) / 1e6;
		}
		return new ArmResult(arm, count, forwarded, refused, other, holds.count(), mostInWindow(sorted),
				smallestGap(sorted) / 1e6, waitMillis, holds.longestNanos() / 1e6, bins(sorted, lengthNanos));
	}

	/**
	 * The most arrivals in a window of the given length, open at its end: the busiest
	 * window starts at an arrival.
	 */
	private static int mostInWindow(long[] sorted) {
		long window = WINDOW_MILLIS * 1_000_000L;
		int most = 0;
		int end = 0;
		for (int start = 0; start < sorted.length; start++) {
			while (end < sorted.length && sorted[end] - sorted[start] < window) {
				end++;
			}
			most = Math.max(most, end - start);
		}
		return most;
	}

	private static double smallestGap(long[] sorted) {
		long smallest = Long.MAX_VALUE;
		for (int i = 1; i < sorted.length; i++) {
			smallest = Math.min(smallest, sorted[i] - sorted[i - 1]);
		}
		return (sorted.length < 2) ? Double.NaN : smallest;
	}

	private static int[] bins(long[] sorted, long lengthNanos) {
		long bin = BIN_MILLIS * 1_000_000L;
		int[] bins = new int[(int) (lengthNanos / bin) + 1];
		for (long arrival : sorted) {
			bins[(int) Math.min(bins.length - 1, Math.max(0, arrival / bin))]++;
		}
		return bins;
	}

	private static long at(long[] sorted, double percentile) {
		return sorted[Math.max(0, (int) Math.ceil(percentile * sorted.length) - 1)];
	}

	/**
	 * The holds the gateways decided for a policy: how many, and the longest.
	 */
	record Holds(long count, long longestNanos) {

		static Holds of(List<Gateway> gateways, String policy) {
			long count = 0;
			long longest = 0;
			for (Gateway gateway : gateways) {
				count += gateway.decidedHolds().count(policy);
				longest = Math.max(longest, gateway.decidedHolds().longestNanos(policy));
			}
			return new Holds(count, longest);
		}

	}

}
