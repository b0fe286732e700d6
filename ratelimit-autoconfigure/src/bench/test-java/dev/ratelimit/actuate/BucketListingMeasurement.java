package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.actuate.RateLimitsEndpoint.BucketsDescriptor;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.support.MonotonicClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures listing the hottest buckets of a policy with a million live buckets while
 * another thread keeps deciding requests; prints the numbers that
 * {@code docs/operations.md} quotes. Asserts behaviour only, never time. It takes a few
 * seconds and a gigabyte; run it with
 * {@code ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure test-compile exec:exec@bucket-listing}.
 */
public final class BucketListingMeasurement {

	private static final int BUCKETS = 1_000_000;

	private BucketListingMeasurement() {
	}

	public static void main(String[] arguments) throws Exception {
		CaffeineBucketStore store = new CaffeineBucketStore(MonotonicClock.SYSTEM, 2L * BUCKETS);
		Tier tier = new Tier("anonymous", List.of(new TokenBucket(100, 1, Duration.ofSeconds(1))));
		RateLimitPolicy policy = new RateLimitPolicy("orders", new KeySource.ClientIp(), false, 1,
				StoreType.CAFFEINE, Map.of("anonymous", tier), tier);
		for (int i = 0; i < BUCKETS; i++) {
			store.acquire(new BucketId("orders", "anonymous", "client-" + i), tier, 1 + (i % 7)).block();
		}
		RateLimitsEndpoint endpoint = new RateLimitsEndpoint(
				new RateLimitPolicies(Map.of("orders", policy), Map.of()),
				new BucketStores(List.of(store), List.of(store)),
				new RateLimitTotals(), new KeyMasker(ShowKeys.NEVER, 4), null);
		AtomicBoolean listing = new AtomicBoolean(true);
		AtomicLong decisionsDuringListing = new AtomicLong();
		Thread requests = new Thread(() -> {
			BucketId hot = new BucketId("orders", "anonymous", "hot-client");
			while (listing.get()) {
				store.acquire(hot, tier, 1).block();
				decisionsDuringListing.incrementAndGet();
			}
		});
		requests.start();
		long started = System.nanoTime();
		BucketsDescriptor hottest = (BucketsDescriptor) endpoint.buckets("orders", "100").block().getBody();
		long listingNanos = System.nanoTime() - started;
		listing.set(false);
		requests.join();
		assertThat(hottest.buckets()).hasSize(100);
		assertThat(hottest.liveBuckets()).isGreaterThanOrEqualTo(BUCKETS);
		assertThat(decisionsDuringListing.get()).isPositive();
		System.out.printf("Listing the 100 hottest of %,d buckets took %,d ms; %,d requests were decided meanwhile%n",
				hottest.liveBuckets(), listingNanos / 1_000_000, decisionsDuringListing.get());
	}

}
