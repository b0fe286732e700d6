package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The slots this node holds in the limits that count requests in flight, per bucket, and
 * the background task that renews their leases on Redis every third of a lease, so that
 * only a node gone (or cut off from Redis for longer than a lease) loses its slots.
 * <p>
 * A bucket's count goes up before a call that may take a slot, and down once the call
 * took none or the exchange ended: never below the slots Redis holds for the node, so
 * that a renewal, which keeps at most as many, drops only a slot the node no longer
 * counts (a call that timed out after Redis had taken its slot) and never one a request
 * still holds. Runs on Reactor's shared parallel scheduler, as {@link RecoveryProbe}.
 */
final class HeldSlots {

	/**
	 * Renewals in flight at once, so that many buckets renew within an interval without
	 * flooding the connection.
	 */
	private static final int RENEWALS_AT_ONCE = 16;

	/**
	 * The shortest renewal interval, whatever the lease: the script counts leases in
	 * milliseconds.
	 */
	private static final Duration SHORTEST_INTERVAL = Duration.ofMillis(1);

	private final Map<Held, Slots> held = new ConcurrentHashMap<>();

	private final AtomicReference<@Nullable Disposable> renewing = new AtomicReference<>();

	private final AtomicLong renewals = new AtomicLong();

	/**
	 * A call that may take a slot of the bucket is about to be made.
	 */
	void taking(BucketId id, Tier tier, RedisLayout layout) {
		this.held.compute(new Held(id, tier), (key, slots) -> new Slots(layout, (slots != null) ? slots.count + 1 : 1));
	}

	/**
	 * A call counted by {@link #taking} took no slot, or its exchange has ended.
	 */
	void released(BucketId id, Tier tier) {
		this.held.computeIfPresent(new Held(id, tier),
				(key, slots) -> (slots.count > 1) ? new Slots(slots.layout, slots.count - 1) : null);
	}

	/**
	 * The slots this node counts in the bucket.
	 */
	long count(BucketId id, Tier tier) {
		Slots slots = this.held.get(new Held(id, tier));
		return (slots != null) ? slots.count : 0;
	}

	/**
	 * Renewals Redis answered since start, each of one bucket.
	 */
	long renewals() {
		return this.renewals.get();
	}

	/**
	 * Starts renewing every third of {@code lease}.
	 * @param renewal a call renewing the node's lease on the bucket of a client key, for
	 * at most the given slots: whether Redis renewed it, never an error
	 */
	void start(Duration lease, Renewal renewal) {
		Duration third = lease.dividedBy(3);
		Duration interval = (third.compareTo(SHORTEST_INTERVAL) > 0) ? third : SHORTEST_INTERVAL;
		Disposable task = Flux.interval(interval, interval)
			.onBackpressureDrop()
			.concatMap((tick) -> renewAll(renewal), 1)
			.subscribe();
		Disposable previous = this.renewing.getAndSet(task);
		if (previous != null) {
			previous.dispose();
		}
	}

	/**
	 * Stops renewing, a renewal in flight included; the counts are kept.
	 */
	void stop() {
		Disposable task = this.renewing.getAndSet(null);
		if (task != null) {
			task.dispose();
		}
	}

	private Mono<Void> renewAll(Renewal renewal) {
		List<Map.Entry<Held, Slots>> buckets = new ArrayList<>(this.held.entrySet());
		return Flux.fromIterable(buckets)
			.flatMap((bucket) -> renewal.renew(bucket.getValue().layout, bucket.getKey().id().key(),
					bucket.getValue().count), RENEWALS_AT_ONCE)
			.filter(Boolean::booleanValue)
			.doOnNext((renewed) -> this.renewals.incrementAndGet())
			.then();
	}

	/**
	 * One bucket's renewal.
	 */
	@FunctionalInterface
	interface Renewal {

		Mono<Boolean> renew(RedisLayout layout, String clientKey, long held);

	}

	private record Held(BucketId id, Tier tier) {
	}

	private record Slots(RedisLayout layout, long count) {
	}

}
