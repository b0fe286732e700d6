package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.LimitSnapshot;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A concurrency limit on a real Redis, shared by two stores as two gateway nodes share
 * it, each on a connection and under a node id of its own: the limit holds across both,
 * an ended exchange frees its slot for either, and slots are leases: those of a node
 * that stopped come back once its lease has expired, those of a node still running are
 * renewed for as long as its exchange lasts. Redis time cannot be faked: the waits for a
 * lease are bounded waits on Redis's own clock, and what they assert is what any wait
 * that long implies.
 */
class RedisConcurrencyTests {

	/**
	 * Generous, so that a slow test machine never turns a decision into a fallback.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	/**
	 * Short enough for a test to outlive a few, long enough that a renewal every third of
	 * it is never late by the rest on a busy machine.
	 */
	private static final Duration SHORT_LEASE = Duration.ofSeconds(1);

	private static final Duration LONGEST_WAIT = Duration.ofSeconds(20);

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	private final List<RedisBucketStore> stores = new ArrayList<>();

	private final BucketId id = new BucketId("orders", "free", "client");

	@AfterEach
	void stopStores() {
		this.stores.forEach(RedisBucketStore::stop);
	}

	@Test
	void theLimitHoldsAcrossNodesAndAnEndedExchangeFreesItsSlotForEither() {
		Tier tier = TestPolicies.tier("free", new Concurrency(3));
		RedisBucketStore first = node(Duration.ofSeconds(30));
		RedisBucketStore second = node(Duration.ofSeconds(30));
		assertThat(first.acquire(this.id, tier, 1).block().allowed()).isTrue();
		assertThat(first.acquire(this.id, tier, 5).block().allowed()).as("one slot whatever the cost").isTrue();
		Verdict third = second.acquire(this.id, tier, 1).block();
		assertThat(third.allowed()).isTrue();
		assertThat(third.reported().remaining()).isZero();
		Verdict refused = second.acquire(this.id, tier, 1).block();
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.fallback()).isFalse();
		assertThat(refused.retryAfterNanos()).isEqualTo(Concurrency.RETRY_AFTER.toNanos());
		assertThat(first.acquire(this.id, tier, 1).block().allowed()).isFalse();
		assertThat(inFlight(first, tier)).isEqualTo(3);
		assertThat(first.slotsHeld(this.id, tier)).isEqualTo(2);
		assertThat(second.slotsHeld(this.id, tier)).isEqualTo(1);
		Verdict settled = first.settle(this.id, tier, new Settlement(0, 0, true, false)).block();
		assertThat(settled.reported().remaining()).isEqualTo(1);
		assertThat(first.slotsHeld(this.id, tier)).isEqualTo(1);
		assertThat(second.acquire(this.id, tier, 1).block().allowed()).isTrue();
		assertThat(inFlight(second, tier)).isEqualTo(3);
	}

	/**
	 * A node gives back only its own slots, never below none: an ended exchange of a node
	 * that holds none frees nobody's slot.
	 */
	@Test
	void aNodeGivesBackOnlyItsOwnSlots() {
		Tier tier = TestPolicies.tier("free", new Concurrency(1));
		RedisBucketStore holder = node(Duration.ofSeconds(30));
		RedisBucketStore other = node(Duration.ofSeconds(30));
		assertThat(holder.acquire(this.id, tier, 1).block().allowed()).isTrue();
		assertThat(other.acquire(this.id, tier, 1).block().allowed()).isFalse();
		other.settle(this.id, tier, new Settlement(0, 0, true, false)).block();
		assertThat(other.acquire(this.id, tier, 1).block().allowed()).isFalse();
		assertThat(inFlight(holder, tier)).isEqualTo(1);
		holder.settle(this.id, tier, new Settlement(0, 0, true, false)).block();
		holder.settle(this.id, tier, new Settlement(0, 0, true, false)).block();
		assertThat(inFlight(holder, tier)).isZero();
		assertThat(holder.slotsHeld(this.id, tier)).isZero();
	}

	/**
	 * With a rate limit in one tier, all or nothing: a request the window refuses takes
	 * no slot, on Redis nor in the node's count.
	 */
	@Test
	void aRequestAnotherLimitRefusesTakesNoSlot() {
		Tier tier = TestPolicies.tier("free", new Concurrency(5), new FixedWindow(1, Duration.ofDays(1)));
		RedisBucketStore node = node(Duration.ofSeconds(30));
		assertThat(node.acquire(this.id, tier, 1).block().allowed()).isTrue();
		Verdict refused = node.acquire(this.id, tier, 1).block();
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.reportedIndex()).isEqualTo(1);
		assertThat(inFlight(node, tier)).isEqualTo(1);
		assertThat(node.slotsHeld(this.id, tier)).isEqualTo(1);
		// A check of a full window refuses too, and takes no slot either.
		assertThat(node.check(this.id, tier, 1).block().allowed()).isFalse();
		assertThat(inFlight(node, tier)).isEqualTo(1);
	}

	/**
	 * A node stopped without giving its slot back, as a crashed one: the other node is
	 * refused until the lease has expired, then admitted.
	 */
	@Test
	void aStoppedNodesSlotComesBackOnceItsLeaseHasExpired() {
		Tier tier = TestPolicies.tier("free", new Concurrency(1));
		RedisBucketStore crashed = node(SHORT_LEASE);
		RedisBucketStore survivor = node(SHORT_LEASE);
		long before = redisTimeMicros();
		assertThat(crashed.acquire(this.id, tier, 1).block().allowed()).isTrue();
		crashed.stop();
		assertThat(survivor.acquire(this.id, tier, 1).block().allowed()).isFalse();
		await().atMost(LONGEST_WAIT).pollInterval(Duration.ofMillis(50))
			.until(() -> survivor.acquire(this.id, tier, 1).block().allowed());
		assertThat(redisTimeMicros() - before).as("Redis time until the slot came back")
			.isGreaterThanOrEqualTo(SHORT_LEASE.toNanos() / 1000);
		assertThat(inFlight(survivor, tier)).isEqualTo(1);
	}

	/**
	 * A node's exchange lasting several leases keeps its slot: its renewals run every
	 * third of a lease, and the other node is refused throughout.
	 */
	@Test
	void aRunningNodeRenewsItsSlotForAsLongAsItsExchangeLasts() {
		Tier tier = TestPolicies.tier("free", new Concurrency(1));
		RedisBucketStore holder = node(SHORT_LEASE);
		RedisBucketStore other = node(SHORT_LEASE);
		long acquired = redisTimeMicros();
		assertThat(holder.acquire(this.id, tier, 1).block().allowed()).isTrue();
		long leaseMicros = SHORT_LEASE.toNanos() / 1000;
		await().atMost(LONGEST_WAIT).pollInterval(Duration.ofMillis(100))
			.until(() -> holder.slotRenewals() >= 5 && redisTimeMicros() - acquired > 3 * leaseMicros);
		assertThat(other.acquire(this.id, tier, 1).block().allowed()).isFalse();
		assertThat(inFlight(other, tier)).isEqualTo(1);
		holder.settle(this.id, tier, new Settlement(0, 0, true, false)).block();
		assertThat(other.acquire(this.id, tier, 1).block().allowed()).isTrue();
	}

	/**
	 * A slot Redis took for this node that the node does not count (its call timed out
	 * after Redis had judged it, and the failure mode decided) is dropped by the next
	 * renewal rather than renewed for as long as the node has other requests there.
	 */
	@Test
	void aRenewalDropsASlotTheNodeDoesNotCount() {
		Tier tier = TestPolicies.tier("free", new Concurrency(2));
		RedisBucketStore node = node(SHORT_LEASE);
		RedisBucketStore other = node(SHORT_LEASE);
		assertThat(node.acquire(this.id, tier, 1).block().allowed()).isTrue();
		// Behind the count's back: the call a timeout gave up on.
		RedisLayout layout = node.script.layouts().layout(this.id.policy(), tier);
		assertThat(node.script.acquire(layout, this.id.key(), 1).block()[0].allowed()).isTrue();
		assertThat(other.acquire(this.id, tier, 1).block().allowed()).isFalse();
		long renewed = node.slotRenewals();
		await().atMost(LONGEST_WAIT).pollInterval(Duration.ofMillis(50))
			.until(() -> node.slotRenewals() >= renewed + 2);
		assertThat(inFlight(node, tier)).isEqualTo(1);
		assertThat(other.acquire(this.id, tier, 1).block().allowed()).isTrue();
	}

	@Test
	void theSlotsKeyIsNamedByPositionAndAlgorithmSoThatAReloadOfTheLimitKeepsItsRequests() {
		RedisLayout five = new RedisLayout("rl", "orders", TestPolicies.tier("free", new Concurrency(5)));
		RedisLayout ten = new RedisLayout("rl", "orders", TestPolicies.tier("free", new Concurrency(10)));
		assertThat(five.keys("client")).containsExactly("rl:{orders:free:client}:1:6", "rl:{orders:free:client}:b2")
			.isEqualTo(ten.keys("client"));
		assertThat(five.leanAlgorithm()).isNull();
		assertThat(five.countsInFlight()).isTrue();
	}

	private RedisBucketStore node(Duration lease) {
		RedisBucketStore store = TestStores.startedRedis(redis.get().nodeTemplate(), TIMEOUT,
				TestStores.guard("redis", FailureMode.DENY, 5, Duration.ofSeconds(1)), lease);
		this.stores.add(store);
		return store;
	}

	private long inFlight(RedisBucketStore store, Tier tier) {
		LimitSnapshot slots = store.bucket(TestPolicies.policy("orders", StoreType.REDIS, tier), this.id.key())
			.blockFirst()
			.limits()
			.get(0);
		return slots.state().get("inFlight").longValue();
	}

	private static long redisTimeMicros() {
		return redis.template()
			.execute((connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS))
			.map(Number.class::cast)
			.blockFirst()
			.longValue();
	}

}
