package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.hybrid.HybridBucketStore;
import dev.ratelimit.support.ManualClock;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link HybridBucketStore} node keeps deciding from its lease while the lease's
 * renewal is in flight. Nothing here is timed: the node's syncs are run by hand (its
 * own interval is an hour), a {@link StallingProxy} holds the renewal's reply until the
 * test releases it, and whether a request waited is read from whether its verdict was
 * there as soon as it was asked for.
 */
class HybridLeaseRenewalTests {

	private static final long LIMIT = 1000;

	private static final Tier TIER = TestPolicies.tier("free", new FixedWindow(LIMIT, Duration.ofDays(1)));

	private static final BucketId ID = new BucketId("orders", "free", "renewed");

	private static TestRedis redis;

	private StallingProxy proxy;

	private LettuceConnectionFactory factory;

	private final List<HybridBucketStore> nodes = new ArrayList<>();

	@BeforeAll
	static void startRedis() {
		redis = TestRedis.startEmbedded();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@AfterEach
	void close() {
		this.proxy.resume();
		this.nodes.forEach(HybridBucketStore::stop);
		this.proxy.close();
		this.factory.destroy();
		redis.flushAll();
	}

	@Test
	void requestsAreAdmittedFromTheLeaseWhileItsRenewalIsInFlight() {
		HybridBucketStore node = node(MonotonicClock.SYSTEM);
		long held = warmUp(node);
		CompletableFuture<Void> renewal = renewWhileRedisStalls(node);
		spendAtOnce(node, held);
		assertThat(renewal).isNotDone();
	}

	@Test
	void whenTheLeaseRunsOutBeforeItsRenewalAnswersTheRequestWaitsForTheRenewal() throws Exception {
		HybridBucketStore node = node(MonotonicClock.SYSTEM);
		long held = warmUp(node);
		CompletableFuture<Void> renewal = renewWhileRedisStalls(node);
		spendAtOnce(node, held);
		CompletableFuture<Verdict> waiting = node.acquire(ID, TIER, 1).toFuture();
		assertThat(waiting).isNotDone();
		this.proxy.resume();
		renewal.get(30, TimeUnit.SECONDS);
		assertThat(waiting.get(30, TimeUnit.SECONDS).allowed()).isTrue();
	}

	@Test
	void aLeaseSpentDownToAQuarterIsRenewedBeforeItRunsOut() throws Exception {
		HybridBucketStore node = node(MonotonicClock.SYSTEM);
		long held = warmUp(node);
		long calls = node.remoteCalls();
		this.proxy.stall();
		spendAtOnce(node, held - 3);
		assertThat(node.remoteCalls()).as("calls while the lot holds more than a quarter of its 12").isEqualTo(calls);
		spendAtOnce(node, 1);
		assertThat(node.remoteCalls()).as("calls once it holds 2").isEqualTo(calls + 1);
		spendAtOnce(node, 2);
		CompletableFuture<Verdict> waiting = node.acquire(ID, TIER, 1).toFuture();
		assertThat(waiting).isNotDone();
		assertThat(node.remoteCalls()).as("the request waits for the renewal under way").isEqualTo(calls + 1);
		this.proxy.resume();
		assertThat(waiting.get(30, TimeUnit.SECONDS).allowed()).isTrue();
	}

	@Test
	void theLeaseAnswersAtOnceWhatItCanDecideWithoutRedisAndLeavesTheRestToAcquire() {
		HybridBucketStore node = node(MonotonicClock.SYSTEM);
		assertThat(node.acquireNow(ID, TIER, 1)).as("a bucket this node holds nothing of").isNull();
		long held = warmUp(node);
		CompletableFuture<Void> renewal = renewWhileRedisStalls(node);
		for (int i = 0; i < held; i++) {
			assertThat(node.acquireNow(ID, TIER, 1).allowed()).isTrue();
		}
		assertThat(node.acquireNow(ID, TIER, 1)).as("the lease spent, its renewal in flight").isNull();
		assertThat(renewal).isNotDone();
	}

	@Test
	void everyUnitAdmittedWhileARenewalTravelledIsCountedInRedisOnce() throws Exception {
		// The renewal gives back what was left of the lease before it, never the units
		// being spent meanwhile: once the node gives everything back, Redis counts
		// exactly the admitted requests.
		HybridBucketStore node = node(MonotonicClock.SYSTEM);
		long admitted = 10;
		long held = warmUp(node);
		CompletableFuture<Void> renewal = renewWhileRedisStalls(node);
		spendAtOnce(node, held);
		admitted += held;
		this.proxy.resume();
		renewal.get(30, TimeUnit.SECONDS);
		spendAtOnce(node, 5);
		admitted += 5;
		node.syncOnce().block(Duration.ofSeconds(30));
		node.stop();
		assertThat(remaining()).isEqualTo(LIMIT - admitted);
	}

	@Test
	void unitsOfAWindowThatEndedAreNotSpentWhileTheRenewalTravels() throws Exception {
		// Units expire at the end of the window they were counted in, measured from when
		// they were asked for: past it, a request waits for the renewal even though the
		// node still holds units.
		ManualClock clock = new ManualClock();
		HybridBucketStore node = node(clock);
		warmUp(node);
		CompletableFuture<Void> renewal = renewWhileRedisStalls(node);
		clock.advance(Duration.ofDays(1));
		CompletableFuture<Verdict> waiting = node.acquire(ID, TIER, 1).toFuture();
		assertThat(waiting).isNotDone();
		this.proxy.resume();
		renewal.get(30, TimeUnit.SECONDS);
		assertThat(waiting.get(30, TimeUnit.SECONDS).allowed()).isTrue();
	}

	/**
	 * The node's sync, started while Redis holds every reply back.
	 */
	private CompletableFuture<Void> renewWhileRedisStalls(HybridBucketStore node) {
		this.proxy.stall();
		return node.syncOnce().toFuture();
	}

	/**
	 * {@code requests} requests, each decided without waiting for Redis, and admitted.
	 */
	private static void spendAtOnce(HybridBucketStore node, long requests) {
		for (int i = 0; i < requests; i++) {
			assertThat(node.acquire(ID, TIER, 1).toFuture()).as("request %d decided without waiting for Redis", i + 1)
				.isCompletedWithValueMatching(Verdict::allowed);
		}
	}

	/**
	 * Ten requests, one at a time: the node leases 2 units for the first, then, each time
	 * a lot is spent down to a quarter, twice the demand so far ahead of the next
	 * request: 4 units at the second, 12 at the sixth. It holds the 8 the tenth left.
	 * @return units held
	 */
	private long warmUp(HybridBucketStore node) {
		for (int i = 0; i < 10; i++) {
			assertThat(node.acquire(ID, TIER, 1).block().allowed()).isTrue();
		}
		assertThat(remaining()).isEqualTo(LIMIT - (2 + 4 + 12));
		return (2 + 4 + 12) - 10;
	}

	private long remaining() {
		BucketScript direct = new BucketScript(redis.template(), "rl");
		BucketSnapshot snapshot = new BucketReader(direct).peek(ID, direct.layouts().layout(ID.policy(), TIER)).block();
		return snapshot.limits().get(0).remaining();
	}

	/**
	 * A node behind the proxy whose own syncs never come (an hour apart), with a
	 * timeout no test reaches.
	 */
	private HybridBucketStore node(MonotonicClock clock) {
		this.proxy = new StallingProxy(redis.port());
		this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", this.proxy.port()));
		this.factory.afterPropertiesSet();
		this.factory.start();
		HybridBucketStore node = new HybridBucketStore(
				new BucketScript(new ReactiveStringRedisTemplate(this.factory), "rl"), Duration.ofMinutes(1),
				Duration.ofHours(1), TestStores.guard("hybrid", FailureMode.DENY, 5, Duration.ofSeconds(1)), clock);
		node.start();
		this.nodes.add(node);
		return node;
	}

}
