package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * Each algorithm against a brute-force model of its guarantee, over random request
 * sequences: a list of (gap since the previous request in milliseconds, cost).
 */
class AlgorithmPropertiesTests {

	private static final long MILLISECOND = 1_000_000L;

	@Property(tries = 300)
	void tryAcquireDecidesAndConsumesAsProbeThenCommit(@ForAll @IntRange(min = 0, max = 4) int algorithm,
			@ForAll @IntRange(min = 1, max = 20) int quota, @ForAll @LongRange(min = 1, max = 2000) long periodMillis,
			@ForAll @Size(max = 200) List<@IntRange(min = 0, max = 300) Integer> gaps,
			@ForAll @IntRange(min = 0, max = 3) int cost) {
		Duration period = Duration.ofMillis(periodMillis);
		Limit limit = switch (algorithm) {
			case 0 -> new FixedWindow(quota, period);
			case 1 -> new SlidingWindowLog(quota, period);
			case 2 -> new SlidingWindowCounter(quota, period);
			case 3 -> new TokenBucket(quota, 1.5, period);
			default -> new LeakyBucket(quota, 1.5, period);
		};
		LimitState inOneStep = limit.newState(0);
		LimitState inTwoSteps = limit.newState(0);
		long now = 0;
		for (int gap : gaps) {
			now += gap * MILLISECOND;
			Decision probed = inTwoSteps.probe(now, cost);
			if (probed.allowed()) {
				inTwoSteps.commit(now, cost);
			}
			assertThat(limit.tryAcquire(inOneStep, now, cost)).isEqualTo(probed);
			assertThat(inOneStep.describe(now)).isEqualTo(inTwoSteps.describe(now));
			assertThat(inOneStep.probe(now, 1)).isEqualTo(inTwoSteps.probe(now, 1));
		}
	}

	@Property(tries = 300)
	void slidingWindowLogNeverAdmitsMoreThanTheLimitInAnyWindow(@ForAll @IntRange(min = 1, max = 20) int limit,
			@ForAll @LongRange(min = 1, max = 2000) long windowMillis,
			@ForAll @Size(max = 200) List<@IntRange(min = 0, max = 300) Integer> gaps) {
		long window = windowMillis * MILLISECOND;
		LimitState state = new SlidingWindowLog(limit, Duration.ofMillis(windowMillis)).newState(0);
		Deque<Long> admitted = new ArrayDeque<>();
		long now = 0;
		for (int gap : gaps) {
			now += gap * MILLISECOND;
			while (!admitted.isEmpty() && now - admitted.peekFirst() >= window) {
				admitted.removeFirst();
			}
			boolean modelAllows = admitted.size() < limit;
			Decision decision = state.probe(now, 1);
			assertThat(decision.allowed()).isEqualTo(modelAllows);
			if (decision.allowed()) {
				state.commit(now, 1);
				admitted.addLast(now);
			}
			assertThat(decision.remaining()).isEqualTo(limit - admitted.size());
			assertThat(admitted.size()).isLessThanOrEqualTo(limit);
		}
	}

	@Property(tries = 300)
	void tokenBucketNeverHoldsMoreThanCapacityNorAdmitsMoreThanItsRefill(
			@ForAll @IntRange(min = 1, max = 20) int capacity, @ForAll @IntRange(min = 1, max = 50) int ratePerTenSeconds,
			@ForAll @Size(max = 200) List<@IntRange(min = 0, max = 2000) Integer> gaps,
			@ForAll @IntRange(min = 1, max = 3) int cost) {
		double rate = ratePerTenSeconds / 10.0;
		LimitState state = new TokenBucket(capacity, rate, Duration.ofSeconds(1)).newState(0);
		long now = 0;
		long admittedUnits = 0;
		double modelTokens = capacity;
		long refilledAt = 0;
		for (int gap : gaps) {
			now += gap * MILLISECOND;
			modelTokens = Math.min(capacity, modelTokens + rate * (now - refilledAt) / 1e9);
			refilledAt = now;
			Decision decision = state.probe(now, cost);
			assertThat(decision.allowed()).isEqualTo(modelTokens + 1e-6 >= cost);
			if (decision.allowed()) {
				state.commit(now, cost);
				admittedUnits += cost;
				modelTokens = Math.max(0, modelTokens - cost);
			}
			assertThat(state.describe(now).get("tokens").doubleValue()).isLessThanOrEqualTo(capacity)
				.isCloseTo(modelTokens, offset(0.001));
			assertThat(decision.remaining()).isBetween(0L, (long) capacity);
			double refilled = rate * now / 1e9;
			assertThat((double) admittedUnits).isLessThanOrEqualTo(capacity + refilled + 1e-6);
		}
	}

	@Property(tries = 300)
	void leakyBucketQueueNeverExceedsCapacity(@ForAll @IntRange(min = 1, max = 20) int capacity,
			@ForAll @IntRange(min = 1, max = 50) int ratePerTenSeconds,
			@ForAll @Size(max = 200) List<@IntRange(min = 0, max = 2000) Integer> gaps,
			@ForAll @IntRange(min = 1, max = 3) int cost) {
		double rate = ratePerTenSeconds / 10.0;
		LimitState state = new LeakyBucket(capacity, rate, Duration.ofSeconds(1)).newState(0);
		long now = 0;
		double modelLevel = 0;
		long drainedAt = 0;
		for (int gap : gaps) {
			now += gap * MILLISECOND;
			modelLevel = Math.max(0, modelLevel - rate * (now - drainedAt) / 1e9);
			drainedAt = now;
			Decision decision = state.probe(now, cost);
			boolean modelAllows = modelLevel + cost <= capacity + 1e-6;
			assertThat(decision.allowed()).isEqualTo(modelAllows);
			if (decision.allowed()) {
				state.commit(now, cost);
				modelLevel = Math.min(capacity, modelLevel + cost);
			}
			assertThat(state.describe(now).get("level").doubleValue()).isLessThanOrEqualTo(capacity)
				.isCloseTo(modelLevel, offset(0.001));
		}
	}

	@Property(tries = 300)
	void slidingWindowCounterNeverAdmitsMoreThanTheLimitInTheCurrentWindow(
			@ForAll @IntRange(min = 1, max = 20) int limit, @ForAll @LongRange(min = 1, max = 2000) long windowMillis,
			@ForAll @Size(max = 200) List<@IntRange(min = 0, max = 300) Integer> gaps,
			@ForAll @IntRange(min = 1, max = 3) int cost) {
		long window = windowMillis * MILLISECOND;
		LimitState state = new SlidingWindowCounter(limit, Duration.ofMillis(windowMillis)).newState(0);
		long now = 0;
		long windowIndex = 0;
		long admittedInWindow = 0;
		for (int gap : gaps) {
			now += gap * MILLISECOND;
			if (now / window != windowIndex) {
				windowIndex = now / window;
				admittedInWindow = 0;
			}
			Decision decision = state.probe(now, cost);
			if (decision.allowed()) {
				state.commit(now, cost);
				admittedInWindow += cost;
			}
			assertThat(admittedInWindow).isLessThanOrEqualTo(limit);
			assertThat(decision.remaining()).isBetween(0L, (long) limit);
		}
	}

	@Property(tries = 300)
	void fixedWindowAdmitsExactlyTheLimitPerWindow(@ForAll @IntRange(min = 1, max = 20) int limit,
			@ForAll @LongRange(min = 1, max = 2000) long windowMillis,
			@ForAll @Size(max = 200) List<@IntRange(min = 0, max = 300) Integer> gaps) {
		long window = windowMillis * MILLISECOND;
		LimitState state = new FixedWindow(limit, Duration.ofMillis(windowMillis)).newState(0);
		long now = 0;
		long windowIndex = 0;
		long admittedInWindow = 0;
		for (int gap : gaps) {
			now += gap * MILLISECOND;
			if (now / window != windowIndex) {
				windowIndex = now / window;
				admittedInWindow = 0;
			}
			Decision decision = state.probe(now, 1);
			assertThat(decision.allowed()).isEqualTo(admittedInWindow < limit);
			if (decision.allowed()) {
				state.commit(now, 1);
				admittedInWindow++;
			}
			assertThat(decision.remaining()).isEqualTo(limit - admittedInWindow);
		}
	}

	@Property(tries = 300)
	void rejectedRequestFitsExactlyAtItsRetryAfter(@ForAll @IntRange(min = 0, max = 4) int algorithm,
			@ForAll @IntRange(min = 1, max = 10) int quota,
			@ForAll @Size(max = 100) List<@IntRange(min = 0, max = 300) Integer> gaps,
			@ForAll @IntRange(min = 1, max = 3) int cost) {
		Limit limit = limit(algorithm, quota);
		LimitState state = limit.newState(0);
		long now = 0;
		for (int i = 0; i < gaps.size(); i++) {
			now += gaps.get(i) * MILLISECOND;
			Decision decision = state.probe(now, cost);
			if (decision.allowed()) {
				state.commit(now, cost);
			}
			else if (cost <= quota) {
				assertThat(decision.retryAfterNanos()).isPositive();
				assertThat(decision.resetNanos()).as("a rejection's reset is its retry-after")
					.isEqualTo(decision.retryAfterNanos());
				Bucket copy = replay(limit, gaps.subList(0, i), cost);
				assertThat(copy.peek(0, now + decision.retryAfterNanos() - 2 * MILLISECOND).remaining())
					.as("still short just before the retry-after")
					.isLessThan(cost);
				assertThat(copy.tryAcquire(now + decision.retryAfterNanos(), cost).allowed())
					.as("admitted at the retry-after")
					.isTrue();
			}
		}
	}

	@Property(tries = 300)
	void anAdmissionsResetIsWhenItsRemainingNextGoesUp(@ForAll @IntRange(min = 0, max = 4) int algorithm,
			@ForAll @IntRange(min = 1, max = 10) int quota,
			@ForAll @Size(max = 100) List<@IntRange(min = 0, max = 300) Integer> gaps,
			@ForAll @IntRange(min = 1, max = 3) int cost) {
		Limit limit = limit(algorithm, quota);
		Bucket bucket = Bucket.of(List.of(limit), 0);
		long now = 0;
		for (int i = 0; i < gaps.size(); i++) {
			now += gaps.get(i) * MILLISECOND;
			Decision decision = bucket.tryAcquire(now, cost).reported();
			if (!decision.allowed()) {
				continue;
			}
			if (decision.remaining() == quota) {
				assertThat(decision.resetNanos()).isZero();
				continue;
			}
			assertThat(decision.resetNanos()).isPositive();
			Bucket copy = replay(limit, gaps.subList(0, i + 1), cost);
			assertThat(copy.peek(0, now + decision.resetNanos() - 2 * MILLISECOND).remaining())
				.as("no more left just before the reset")
				.isEqualTo(decision.remaining());
			assertThat(copy.peek(0, now + decision.resetNanos()).remaining()).as("more left at the reset")
				.isGreaterThan(decision.remaining());
		}
	}

	private static Limit limit(int algorithm, int quota) {
		Duration period = Duration.ofSeconds(1);
		return switch (algorithm) {
			case 0 -> new FixedWindow(quota, period);
			case 1 -> new SlidingWindowLog(quota, period);
			case 2 -> new SlidingWindowCounter(quota, period);
			case 3 -> new TokenBucket(quota, 3, period);
			default -> new LeakyBucket(quota, 3, period);
		};
	}

	/**
	 * A fresh bucket that has seen the same requests.
	 */
	private static Bucket replay(Limit limit, List<Integer> gaps, int cost) {
		Bucket bucket = Bucket.of(List.of(limit), 0);
		long now = 0;
		for (int gap : gaps) {
			now += gap * MILLISECOND;
			bucket.tryAcquire(now, cost);
		}
		return bucket;
	}

}
