package dev.ratelimit.store.caffeine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.Settlement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The slots of a concurrency tier in the Caffeine store, over any interleaving of
 * admissions (acquired or checked) and ends, with gaps from none to hours, past every
 * idle timeout: the bucket holds exactly the requests admitted and not yet ended, never
 * more than its limit, and admits exactly while it holds fewer.
 */
class CaffeineSlotPropertiesTests {

	private static final long SECOND = 1_000_000_000L;

	@Property(tries = 300)
	void theSlotsInFlightAreTheRequestsAdmittedAndNotEnded(@ForAll @IntRange(min = 1, max = 4) int limit,
			@ForAll boolean withRateLimit, @ForAll("steps") List<Step> steps) {
		List<Limit> limits = withRateLimit
				? List.of(new TokenBucket(1000, 1000, Duration.ofSeconds(1)), new Concurrency(limit))
				: List.of(new Concurrency(limit));
		Tier tier = new Tier("slots", limits);
		RateLimitPolicy policy = new RateLimitPolicy("llm", new KeySource.ClientIp(), false, 1, StoreType.CAFFEINE,
				Map.of("slots", tier), tier);
		AtomicLong time = new AtomicLong(SECOND);
		CaffeineBucketStore store = new CaffeineBucketStore(time::get, 1000, Runnable::run);
		BucketId id = new BucketId("llm", "slots", "alice");
		List<Long> open = new ArrayList<>();
		long admitted = 0;
		long ended = 0;
		for (Step step : steps) {
			long now = time.addAndGet(step.gap());
			if (step.kind() == Kind.END && !open.isEmpty()) {
				long admittedAt = open.remove(step.pick() % open.size());
				store.settle(id, tier, new Settlement(0, now - admittedAt, true, false)).block();
				ended++;
			}
			else if (step.kind() != Kind.END) {
				Verdict verdict = (step.kind() == Kind.CHECK) ? store.checkNow(id, tier, step.cost())
						: store.acquireNow(id, tier, step.cost());
				assertThat(verdict.allowed()).as("admitted with %d in flight of %d", admitted - ended, limit)
					.isEqualTo(admitted - ended < limit);
				if (verdict.allowed()) {
					admitted++;
					open.add(now);
				}
			}
			long inFlight = inFlight(store, policy, limits.size() - 1);
			assertThat(inFlight).as("in flight").isEqualTo(admitted - ended).isLessThanOrEqualTo(limit);
		}
	}

	@Provide
	Arbitrary<List<Step>> steps() {
		Arbitrary<Long> gaps = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just(0L)),
				Tuple.of(4, Arbitraries.longs().between(1, 2 * SECOND)),
				Tuple.of(2, Arbitraries.longs().between(2 * SECOND, 120 * SECOND)),
				Tuple.of(1, Arbitraries.longs().between(120 * SECOND, 5 * 3600 * SECOND)));
		return Combinators
			.combine(gaps, Arbitraries.of(Kind.class), Arbitraries.integers().between(0, 7),
					Arbitraries.longs().between(1, 3))
			.as(Step::new)
			.list()
			.ofMaxSize(60);
	}

	/**
	 * The requests the bucket holds in flight: none when the store has forgotten it.
	 */
	private static long inFlight(CaffeineBucketStore store, RateLimitPolicy policy, int concurrency) {
		List<BucketSnapshot> buckets = store.bucket(policy, "alice").collectList().block();
		return buckets.isEmpty() ? 0
				: buckets.get(0).limits().get(concurrency).state().get("inFlight").longValue();
	}

	enum Kind {

		ACQUIRE, CHECK, END

	}

	record Step(long gap, Kind kind, int pick, long cost) {
	}

}
