package dev.ratelimit.store.caffeine;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.testsupport.Concurrently;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Buckets of the Caffeine store when the policies are reloaded: a request of a reloaded
 * tier is judged under it, against the state the bucket had, carried over.
 */
class CaffeineBucketStoreReloadTests {

	private static final long SECOND = 1_000_000_000L;

	private static final BucketId ALICE = new BucketId("orders", "free", "10.0.0.1");

	private final AtomicLong time = new AtomicLong(3600 * SECOND + 5 * SECOND);

	private final CaffeineBucketStore store = new CaffeineBucketStore(this.time::get, 1000, Runnable::run);

	private final Tier free = tier(new FixedWindow(3, Duration.ofMinutes(1)));

	@Test
	void aRequestOfTheReloadedTierIsJudgedUnderItWithWhatTheClientSpent() {
		acquire(this.free, 3);
		assertThat(acquire(this.free, 1).allowed()).isFalse();
		Tier raised = tier(new FixedWindow(5, Duration.ofMinutes(1)));
		Verdict verdict = acquire(raised, 1);
		assertThat(verdict.allowed()).isTrue();
		assertThat(verdict.reported().limit()).isEqualTo(5);
		assertThat(verdict.reported().remaining()).isEqualTo(1);
		assertThat(acquire(raised, 1).reported().remaining()).isZero();
		assertThat(acquire(raised, 1).allowed()).isFalse();
	}

	@Test
	void anEqualTierOfAnotherReloadKeepsTheStateAsItIs() {
		acquire(this.free, 2);
		Verdict verdict = acquire(tier(new FixedWindow(3, Duration.ofMinutes(1))), 1);
		assertThat(verdict.reported().remaining()).isZero();
	}

	@Test
	void aRequestStillInFlightUnderTheOldTierIsJudgedUnderItsOwnTier() {
		acquire(this.free, 1);
		Tier raised = tier(new FixedWindow(5, Duration.ofMinutes(1)));
		assertThat(acquire(raised, 1).reported().remaining()).isEqualTo(3);
		// Judged under the limit its route was built with, against the same spending.
		Verdict late = acquire(this.free, 1);
		assertThat(late.reported().limit()).isEqualTo(3);
		assertThat(late.reported().remaining()).isZero();
		assertThat(acquire(raised, 1).reported().remaining()).isEqualTo(1);
	}

	@Test
	void theBucketIsStillOneLiveBucketAndTheListingShowsItUnderItsNewLimits() {
		acquire(this.free, 2);
		Tier raised = tier(new TokenBucket(10, 1, Duration.ofSeconds(1)));
		acquire(raised, 1);
		RateLimitPolicy orders = new RateLimitPolicy("orders", new KeySource.ClientIp(), false, 1,
				StoreType.CAFFEINE, Map.of("free", raised), raised);
		assertThat(this.store.bucketCount(orders).block()).isEqualTo(1);
		List<BucketSnapshot> buckets = this.store.buckets(orders).collectList().block();
		assertThat(buckets).singleElement().satisfies((bucket) -> {
			assertThat(bucket.requests()).isEqualTo(2);
			assertThat(bucket.limits()).singleElement().satisfies((limit) -> {
				assertThat(limit.algorithm()).isEqualTo("token-bucket");
				// Another algorithm: the token bucket started full.
				assertThat(limit.remaining()).isEqualTo(9);
			});
		});
	}

	@Test
	void concurrentRequestsAcrossAReloadNeverAdmitMoreThanTheLimitsAllow() throws Exception {
		Tier limited = tier(new FixedWindow(1000, Duration.ofHours(1)));
		Tier reloaded = tier(new FixedWindow(1000, Duration.ofHours(1)));
		List<Long> admitted = Concurrently.call(8, (thread) -> {
			long count = 0;
			for (int i = 0; i < 400; i++) {
				// Half the threads still run under the old policies, half under the new.
				if (acquire((thread % 2 == 0) ? limited : reloaded, 1).allowed()) {
					count++;
				}
			}
			return count;
		});
		assertThat(admitted.stream().mapToLong(Long::longValue).sum()).isEqualTo(1000);
	}

	private Verdict acquire(Tier tier, long cost) {
		return this.store.acquireNow(ALICE, tier, cost);
	}

	private static Tier tier(FixedWindow limit) {
		return new Tier("free", List.of(limit));
	}

	private static Tier tier(TokenBucket limit) {
		return new Tier("free", List.of(limit));
	}

}
