package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketStore;
import reactor.core.publisher.Flux;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests on a store while a test breaks its Redis: one every 5 ms, 16 at most in
 * flight, spread over a number of keys, each timed from its start to its verdict.
 */
final class Traffic {

	private final AtomicInteger started = new AtomicInteger();

	private final List<Long> waits = new CopyOnWriteArrayList<>();

	private final List<Verdict> verdicts = new CopyOnWriteArrayList<>();

	private final long millis;

	private CompletableFuture<Void> done;

	private Traffic(long millis) {
		this.millis = millis;
	}

	/**
	 * Starts sending for {@code millis} in the background.
	 */
	static Traffic start(BucketStore store, Tier tier, int keys, long millis) {
		Traffic traffic = new Traffic(millis);
		traffic.done = Flux.interval(Duration.ofMillis(5))
			.take(Duration.ofMillis(millis))
			.onBackpressureDrop()
			.flatMap((tick) -> {
				traffic.started.incrementAndGet();
				long startedAt = System.nanoTime();
				return store.acquire(new BucketId("orders", tier.name(), "key-" + (tick % keys)), tier, 1)
					.doOnNext((verdict) -> {
						traffic.waits.add(System.nanoTime() - startedAt);
						traffic.verdicts.add(verdict);
					});
			}, 16)
			.then()
			.toFuture();
		return traffic;
	}

	/**
	 * Waits for the traffic to end; every request started was answered, none later than
	 * {@code longestWaitMillis}.
	 */
	void assertAllAnsweredWithin(long longestWaitMillis) throws Exception {
		// A request stalled beyond the bound would keep the traffic from ending.
		this.done.get(this.millis + 2 * longestWaitMillis, TimeUnit.MILLISECONDS);
		assertThat(this.verdicts).hasSize(this.started.get());
		assertThat(this.waits).allSatisfy(
				(nanos) -> assertThat(Duration.ofNanos(nanos).toMillis()).isLessThan(longestWaitMillis));
	}

	List<Verdict> verdicts() {
		return this.verdicts;
	}

}
