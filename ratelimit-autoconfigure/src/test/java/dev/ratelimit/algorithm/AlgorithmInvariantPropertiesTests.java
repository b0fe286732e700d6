package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What each algorithm guarantees, checked on what it admitted over random request
 * timings: bursts at one instant, nanosecond gaps, gaps of several windows, random
 * costs, a random start on the clock. Unlike a model of the algorithm, these bounds
 * hold whatever its internals, so they also hold for the Redis scripts, which are
 * required to decide as the algorithms do.
 */
class AlgorithmInvariantPropertiesTests {

	/**
	 * The algorithms admit a request short of a unit by at most a millionth of one
	 * (rounding tolerance), so each admission may exceed a bound by that much.
	 */
	private static final double TOLERANCE = 1e-6;

	/**
	 * States are shown rounded to three decimals.
	 */
	private static final double DISPLAY_EPSILON = 0.0005;

	@Property(tries = 300)
	void slidingWindowLogNeverAdmitsMoreThanItsLimitInAnyWindow(@ForAll @IntRange(min = 1, max = 20) int limit,
			@ForAll @LongRange(min = 1, max = 2000) long windowMillis, @ForAll("start") long start,
			@ForAll("requests") List<Request> requests) {
		long window = Duration.ofMillis(windowMillis).toNanos();
		List<Admission> admitted = run(new SlidingWindowLog(limit, Duration.ofMillis(windowMillis)), start, requests,
				null);
		for (Admission last : admitted) {
			long inWindow = 0;
			for (Admission admission : admitted) {
				if (admission.at() <= last.at() && last.at() - admission.at() < window) {
					inWindow += admission.cost();
				}
			}
			assertThat(inWindow).as("units admitted in the window ending at %d", last.at()).isLessThanOrEqualTo(limit);
		}
	}

	@Property(tries = 300)
	void tokenBucketHoldsZeroToCapacityTokensAndAdmitsNoMoreThanCapacityPlusRefill(
			@ForAll @IntRange(min = 1, max = 20) int capacity,
			@ForAll @DoubleRange(min = 0.01, max = 50) double refillRate,
			@ForAll @LongRange(min = 1, max = 5000) long periodMillis, @ForAll("start") long start,
			@ForAll("requests") List<Request> requests) {
		Duration period = Duration.ofMillis(periodMillis);
		List<Admission> admitted = run(new TokenBucket(capacity, refillRate, period), start, requests,
				(bucket, now) -> assertThat(bucket.describe(0, now).get("tokens").doubleValue()).as("tokens")
					.isBetween(-DISPLAY_EPSILON, capacity + DISPLAY_EPSILON));
		assertAdmitsAtMostQuotaPlusRate(admitted, capacity, refillRate / period.toNanos());
	}

	@Property(tries = 300)
	void leakyBucketQueuesZeroToCapacityAndAdmitsNoMoreThanCapacityPlusDrain(
			@ForAll @IntRange(min = 1, max = 20) int capacity, @ForAll @DoubleRange(min = 0.01, max = 50) double drainRate,
			@ForAll @LongRange(min = 1, max = 5000) long periodMillis, @ForAll("start") long start,
			@ForAll("requests") List<Request> requests) {
		Duration period = Duration.ofMillis(periodMillis);
		List<Admission> admitted = run(new LeakyBucket(capacity, drainRate, period), start, requests,
				(bucket, now) -> assertThat(bucket.describe(0, now).get("level").doubleValue()).as("level")
					.isBetween(-DISPLAY_EPSILON, capacity + DISPLAY_EPSILON));
		assertAdmitsAtMostQuotaPlusRate(admitted, capacity, drainRate / period.toNanos());
	}

	@Property(tries = 300)
	void slidingWindowCounterNeverAdmitsAboveItsEstimate(@ForAll @IntRange(min = 1, max = 20) int limit,
			@ForAll @LongRange(min = 1, max = 2000) long windowMillis, @ForAll("start") long start,
			@ForAll("requests") List<Request> requests) {
		long window = Duration.ofMillis(windowMillis).toNanos();
		List<Admission> admitted = run(new SlidingWindowCounter(limit, Duration.ofMillis(windowMillis)), start,
				requests, null);
		for (Admission last : admitted) {
			// The estimate just after admitting, from the admissions alone: this window's
			// units plus the previous window's, weighted by the part of it still inside a
			// window ending now.
			long index = Math.floorDiv(last.at(), window);
			long current = 0;
			long previous = 0;
			for (Admission admission : admitted) {
				if (admission.at() <= last.at()) {
					long admissionIndex = Math.floorDiv(admission.at(), window);
					current += (admissionIndex == index) ? admission.cost() : 0;
					previous += (admissionIndex == index - 1) ? admission.cost() : 0;
				}
			}
			double elapsed = last.at() - index * window;
			double estimate = current + previous * (window - elapsed) / window;
			assertThat(estimate).as("estimate after admitting at %d", last.at())
				.isLessThanOrEqualTo(limit + 2 * TOLERANCE);
		}
	}

	@Property(tries = 300)
	void fixedWindowAdmitsAtMostItsLimitPerWindowAndTwiceItAcrossABoundary(
			@ForAll @IntRange(min = 1, max = 20) int limit, @ForAll @LongRange(min = 1, max = 2000) long windowMillis,
			@ForAll("start") long start, @ForAll("requests") List<Request> requests) {
		long window = Duration.ofMillis(windowMillis).toNanos();
		List<Admission> admitted = run(new FixedWindow(limit, Duration.ofMillis(windowMillis)), start, requests,
				null);
		for (Admission first : admitted) {
			long sameWindow = 0;
			long windowLong = 0;
			for (Admission admission : admitted) {
				sameWindow += (Math.floorDiv(admission.at(), window) == Math.floorDiv(first.at(), window))
						? admission.cost() : 0;
				windowLong += (admission.at() >= first.at() && admission.at() - first.at() < window)
						? admission.cost() : 0;
			}
			assertThat(sameWindow).isLessThanOrEqualTo(limit);
			assertThat(windowLong).isLessThanOrEqualTo(2L * limit);
		}
	}

	/**
	 * A rejected request of a tier of up to three limits, tried again at its
	 * Retry-After, or at the whole seconds the header rounds it up to, is admitted: the
	 * Retry-After is never earlier than the moment it would be. (That it is not later
	 * either, beyond the algorithms' rounding tolerance, AlgorithmPropertiesTests checks
	 * on whole-millisecond timings.)
	 */
	@Property(tries = 500)
	void retryAfterIsNeverEarlierThanTheMomentTheRequestIsAdmitted(@ForAll("tiers") List<Limit> limits,
			@ForAll("start") long start, @ForAll("requests") List<Request> requests) {
		long smallestQuota = limits.stream().mapToLong(Limit::quota).min().getAsLong();
		Bucket bucket = Bucket.of(limits, start);
		long now = start;
		for (int i = 0; i < requests.size(); i++) {
			Request request = requests.get(i);
			now += request.gap();
			long cost = Math.min(request.cost(), smallestQuota);
			Verdict verdict = bucket.tryAcquire(now, cost);
			if (verdict.allowed()) {
				continue;
			}
			long retryAfter = verdict.retryAfterNanos();
			assertThat(retryAfter).isPositive();
			List<Request> history = requests.subList(0, i);
			assertThat(replay(limits, start, history, smallestQuota).tryAcquire(now + retryAfter, cost).allowed())
				.as("tried again at its Retry-After, %d ns", retryAfter)
				.isTrue();
			long header = verdict.retryAfterSeconds() * 1_000_000_000L;
			assertThat(header).isGreaterThanOrEqualTo(retryAfter);
			assertThat(replay(limits, start, history, smallestQuota).tryAcquire(now + header, cost).allowed())
				.as("tried again after the Retry-After header's %d s", verdict.retryAfterSeconds())
				.isTrue();
		}
	}

	/**
	 * A request judged at a reading older than its bucket's last one, as the Caffeine store
	 * may bring it (it reads the clock before waiting for the bucket's lock), is admitted
	 * only when it would be at that last reading, and each limit reports no more room.
	 */
	@Property(tries = 500)
	void aLateReadingFindsNoMoreRoomThanTheLastReading(@ForAll("tiers") List<Limit> limits,
			@ForAll("start") long start, @ForAll("requests") List<Request> requests,
			@ForAll @LongRange(min = 1, max = 5_000_000_000L) long lateness,
			@ForAll @IntRange(min = 1, max = 3) int cost) {
		long smallestQuota = limits.stream().mapToLong(Limit::quota).min().getAsLong();
		long last = start + requests.stream().mapToLong(Request::gap).sum();
		long units = Math.min(cost, smallestQuota);
		Verdict late = replay(limits, start, requests, smallestQuota).tryAcquire(last - lateness, units);
		Verdict onTime = replay(limits, start, requests, smallestQuota).tryAcquire(last, units);
		if (late.allowed()) {
			assertThat(onTime.allowed()).as("admitted at the last reading too").isTrue();
		}
		if (late.allowed() == onTime.allowed()) {
			for (int i = 0; i < limits.size(); i++) {
				assertThat(late.decision(i).remaining()).as("remaining of %s", limits.get(i))
					.isLessThanOrEqualTo(onTime.decision(i).remaining());
			}
		}
	}

	/**
	 * A store forgets a bucket once idle for its {@link Bucket#idleNanos idle time},
	 * worked out at its last use: by then every limit is as good as new, however deep in
	 * debt charges left it, and no admission makes that time longer than it was before
	 * the admission, which is when the Caffeine store works it out.
	 */
	@Property(tries = 500)
	void aBucketIdleForItsIdleTimeIsAsGoodAsNewWhateverItWasCharged(@ForAll("tiers") List<Limit> limits,
			@ForAll("start") long start, @ForAll("requests") List<Request> requests) {
		Bucket bucket = Bucket.of(limits, start);
		long now = start;
		for (int i = 0; i < requests.size(); i++) {
			Request request = requests.get(i);
			now += request.gap();
			if (i % 3 == 0) {
				bucket.settle(now, 10L * request.cost(), now, false);
				continue;
			}
			long before = bucket.idleNanos(now);
			bucket.tryAcquire(now, request.cost());
			// Give or take the rounding of instants, as the state is refilled or drained.
			assertThat(bucket.idleNanos(now)).as("idle time after a decision").isLessThanOrEqualTo(before + 2);
		}
		long asGoodAsNew = now + bucket.idleNanos(now);
		for (int i = 0; i < limits.size(); i++) {
			assertThat(bucket.peek(i, asGoodAsNew).remaining()).as("remaining of %s", limits.get(i))
				.isEqualTo(limits.get(i).quota());
		}
	}

	@Provide
	Arbitrary<Long> start() {
		return Arbitraries.longs().between(0, 1_000_000_000_000L);
	}

	@Provide
	Arbitrary<List<Request>> requests() {
		Arbitrary<Long> gaps = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(0L)),
				Tuple.of(2, Arbitraries.longs().between(1, 1000)),
				Tuple.of(6, Arbitraries.longs().between(1000, 50_000_000)),
				Tuple.of(3, Arbitraries.longs().between(50_000_000, 3_000_000_000L)));
		return Combinators.combine(gaps, Arbitraries.integers().between(1, 3))
			.as(Request::new)
			.list()
			.ofMaxSize(150);
	}

	@Provide
	Arbitrary<List<Limit>> tiers() {
		Arbitrary<Integer> quotas = Arbitraries.integers().between(1, 10);
		Arbitrary<Duration> periods = Arbitraries.longs().between(1, 3000).map(Duration::ofMillis);
		Arbitrary<Double> rates = Arbitraries.doubles().between(0.1, 20).ofScale(3);
		Arbitrary<Limit> limit = Arbitraries.oneOf(
				Combinators.combine(quotas, periods).as((quota, period) -> new FixedWindow(quota, period)),
				Combinators.combine(quotas, periods).as((quota, period) -> new SlidingWindowLog(quota, period)),
				Combinators.combine(quotas, periods).as((quota, period) -> new SlidingWindowCounter(quota, period)),
				Combinators.combine(quotas, rates, periods).as(TokenBucket::new),
				Combinators.combine(quotas, rates, periods).as(LeakyBucket::new));
		return limit.list().ofMinSize(1).ofMaxSize(3);
	}

	/**
	 * Runs the requests through a bucket of one limit, checking {@code eachStep} after
	 * each, and returns what was admitted.
	 */
	private static List<Admission> run(Limit limit, long start, List<Request> requests, StepCheck eachStep) {
		Bucket bucket = Bucket.of(List.of(limit), start);
		List<Admission> admitted = new ArrayList<>();
		long now = start;
		for (Request request : requests) {
			now += request.gap();
			if (bucket.tryAcquire(now, request.cost()).allowed()) {
				admitted.add(new Admission(now, request.cost()));
			}
			if (eachStep != null) {
				eachStep.check(bucket, now);
			}
		}
		return admitted;
	}

	/**
	 * Units admitted between any two admissions, both included, never exceed the
	 * quota plus what the rate adds in between.
	 */
	private static void assertAdmitsAtMostQuotaPlusRate(List<Admission> admitted, long quota, double unitsPerNano) {
		for (int from = 0; from < admitted.size(); from++) {
			long units = 0;
			for (int to = from; to < admitted.size(); to++) {
				units += admitted.get(to).cost();
				double allowed = quota + unitsPerNano * (admitted.get(to).at() - admitted.get(from).at());
				assertThat((double) units).as("units admitted from %d to %d", admitted.get(from).at(),
						admitted.get(to).at())
					.isLessThanOrEqualTo(allowed + TOLERANCE * (to - from + 2));
			}
		}
	}

	private static Bucket replay(List<Limit> limits, long start, List<Request> history, long smallestQuota) {
		Bucket bucket = Bucket.of(limits, start);
		long now = start;
		for (Request request : history) {
			now += request.gap();
			bucket.tryAcquire(now, Math.min(request.cost(), smallestQuota));
		}
		return bucket;
	}

	record Request(long gap, int cost) {
	}

	record Admission(long at, long cost) {
	}

	@FunctionalInterface
	interface StepCheck {

		void check(Bucket bucket, long now);

	}

}
