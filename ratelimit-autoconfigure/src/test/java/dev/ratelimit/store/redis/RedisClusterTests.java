package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStore;
import dev.ratelimit.store.hybrid.HybridBucketStore;
import dev.ratelimit.testsupport.TestPolicies;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;

import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code redis} and {@code hybrid} stores on a real Redis Cluster of three
 * masters: decisions as exact as on one server, every key of a bucket in the slot of
 * its hash tag, the actuator's listing, count and reset reaching every master, and a
 * master lost under traffic answered by {@code on-failure} until it is back.
 */
class RedisClusterTests {

	private static final int MASTERS = 3;

	private static final int CLIENTS = 60;

	/**
	 * Three limits, so four keys per bucket that must share a slot.
	 */
	private static final Tier TIER = TestPolicies.tier("free", new FixedWindow(3, Duration.ofDays(1)),
			new TokenBucket(3, 1, Duration.ofDays(1)), new SlidingWindowLog(3, Duration.ofDays(1)));

	private static final RateLimitPolicy POLICY = TestPolicies.policy("orders", StoreType.REDIS, TIER);

	private static final Tier GENEROUS = TestPolicies.tier("free", new FixedWindow(1_000_000, Duration.ofDays(1)));

	private static final long LONGEST_WAIT_MILLIS = 1500;

	private static TestRedisCluster cluster;

	private final List<HybridBucketStore> hybrids = new ArrayList<>();

	@BeforeAll
	static void startCluster() {
		cluster = TestRedisCluster.start(MASTERS);
	}

	@AfterAll
	static void stopCluster() {
		cluster.close();
	}

	@BeforeEach
	void flush() {
		cluster.flushAll();
	}

	@AfterEach
	void stopHybrids() {
		this.hybrids.forEach(HybridBucketStore::stop);
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "hybrid" })
	void decisionsAreExactOnEveryMaster(String storeName) {
		BucketStore store = store(storeName, Duration.ofSeconds(5), FailureMode.DENY);
		Set<Integer> masters = new HashSet<>();
		for (int i = 0; i < CLIENTS; i++) {
			BucketId id = new BucketId("orders", "free", "client-" + i);
			List<Verdict> verdicts = Flux.range(0, 5).concatMap((request) -> store.acquire(id, TIER, 1)).collectList()
				.block();
			assertThat(verdicts).as(id.key()).noneMatch(Verdict::fallback);
			assertThat(verdicts).as(id.key()).filteredOn(Verdict::allowed).hasSize(3);
			masters.add(cluster.masterOf(SlotHash.getSlot("orders:free:" + id.key())));
		}
		assertThat(masters).as("masters holding the buckets").hasSize(MASTERS);
	}

	/**
	 * Start-up loads the lean script of each of the policies' limits on every master, so
	 * that the first request of a bucket finds it wherever its slot is served.
	 */
	@Test
	void startUpLoadsThePoliciesScriptsOnEveryMaster() {
		Tier tier = TestPolicies.tier("cluster", new TokenBucket(13, 1, Duration.ofSeconds(13)));
		TestStores.redis(cluster.template(), Duration.ofSeconds(5),
				TestStores.guard("redis", FailureMode.DENY, 3, Duration.ofMillis(300)),
				List.of(TestPolicies.policy("orders", StoreType.REDIS, tier)));
		String sha = RedisScript.of(ScriptAssembler.lean(TestLeanLimits.of(tier.limits().get(0)))).getSha1();
		for (int node = 0; node < MASTERS; node++) {
			assertThat(cluster.node(node).scriptExists(sha)).as("master %d", node).containsExactly(true);
		}
	}

	/**
	 * So does a live reload for the limits it brings.
	 */
	@Test
	void aReloadLoadsTheScriptsOfTheLimitsItBringsOnEveryMaster() {
		RedisBucketStore store = TestStores.redis(cluster.template(), Duration.ofSeconds(5),
				TestStores.guard("redis", FailureMode.DENY, 3, Duration.ofMillis(300)), List.of());
		Tier tier = TestPolicies.tier("cluster", new TokenBucket(17, 1, Duration.ofSeconds(17)));
		store.policiesReloaded(List.of(TestPolicies.policy("orders", StoreType.REDIS, tier)));
		String sha = RedisScript.of(ScriptAssembler.lean(TestLeanLimits.of(tier.limits().get(0)))).getSha1();
		for (int node = 0; node < MASTERS; node++) {
			int master = node;
			Pause.until("the reloaded limit's script is on master " + master, Duration.ofSeconds(5),
					() -> cluster.node(master).scriptExists(sha).get(0));
		}
	}

	/**
	 * Two nodes' concurrent requests on each hot bucket share calls and repeat Redis's
	 * refusals, on every master: fewer calls than requests, exactly the limit admitted.
	 */
	@Test
	void sharedCallsAndLocalRefusalsStayExactOnEveryMaster() {
		RedisBucketStore first = (RedisBucketStore) store("redis", Duration.ofSeconds(5), FailureMode.DENY);
		RedisBucketStore second = (RedisBucketStore) store("redis", Duration.ofSeconds(5), FailureMode.DENY);
		Tier tier = TestPolicies.tier("free", new TokenBucket(20, 1, Duration.ofDays(1)));
		Set<Integer> masters = new HashSet<>();
		for (int i = 0; i < CLIENTS; i++) {
			BucketId id = new BucketId("orders", "free", "hot-" + i);
			List<Verdict> verdicts = Flux.range(0, 200)
				.flatMap((request) -> ((request % 2 == 0) ? first : second).acquire(id, tier, 1), 64)
				.collectList()
				.block();
			assertThat(verdicts).as(id.key()).noneMatch(Verdict::fallback);
			assertThat(verdicts).as(id.key()).filteredOn(Verdict::allowed).hasSize(20);
			masters.add(cluster.masterOf(SlotHash.getSlot("orders:free:" + id.key())));
		}
		assertThat(masters).as("masters holding the buckets").hasSize(MASTERS);
		assertThat(first.decisionCalls() + second.decisionCalls()).isLessThan(200L * CLIENTS);
	}

	@Test
	void everyKeyOfABucketIsInTheSlotOfItsTagOnTheMasterServingIt() {
		BucketStore store = store("redis", Duration.ofSeconds(5), FailureMode.DENY);
		for (int i = 0; i < CLIENTS; i++) {
			store.acquire(new BucketId("orders", "free", "client-" + i), TIER, 1).block();
		}
		Map<String, Integer> keysPerTag = new HashMap<>();
		for (int node = 0; node < MASTERS; node++) {
			// The policy's keys, not those of the store's start-up warm-up.
			for (String key : cluster.node(node).keys("rl:{orders:*")) {
				String tag = key.substring(key.indexOf('{') + 1, key.indexOf('}'));
				int slot = cluster.node(node).clusterKeyslot(key).intValue();
				assertThat(slot).as(key).isEqualTo(SlotHash.getSlot(tag));
				assertThat(cluster.masterOf(slot)).as(key).isEqualTo(node);
				keysPerTag.merge(tag, 1, Integer::sum);
			}
		}
		// The bucket key (the fixed window's and the token bucket's states) and the log's list.
		assertThat(keysPerTag).hasSize(CLIENTS).allSatisfy((tag, keys) -> assertThat(keys).isEqualTo(2));
	}

	@Test
	void theActuatorsListingCountAndResetReachEveryMaster() {
		BucketStore store = store("redis", Duration.ofSeconds(5), FailureMode.DENY);
		for (int i = 0; i < CLIENTS; i++) {
			store.acquire(new BucketId("orders", "free", "client-" + i), TIER, 1).block();
		}
		Set<String> listed = new HashSet<>();
		for (BucketSnapshot bucket : store.buckets(POLICY).collectList().block()) {
			listed.add(bucket.id().key());
		}
		assertThat(listed).hasSize(CLIENTS);
		assertThat(store.bucketCount(POLICY).block()).isEqualTo(CLIENTS);
		// Reset one client held by each master.
		Set<Integer> resetOn = new HashSet<>();
		for (int i = 0; i < CLIENTS && resetOn.size() < MASTERS; i++) {
			String key = "client-" + i;
			int master = cluster.masterOf(SlotHash.getSlot("orders:free:" + key));
			if (resetOn.add(master)) {
				assertThat(store.bucket(POLICY, key).collectList().block()).hasSize(1);
				assertThat(store.reset(POLICY, key).block()).isTrue();
				assertThat(cluster.node(master).keys("rl:{orders:free:" + key + "}*")).isEmpty();
				assertThat(store.bucket(POLICY, key).collectList().block()).isEmpty();
			}
		}
		assertThat(store.bucketCount(POLICY).block()).isEqualTo(CLIENTS - MASTERS);
	}

	/**
	 * A penalized decision touches its bucket's keys and the block key in one script
	 * call, so the block key is in the bucket's slot; blocks are listed and lifted on
	 * every master.
	 */
	@Test
	void penaltyBlocksLiveInTheSlotOfTheirBucketAndAreListedAndLiftedOnEveryMaster() {
		RedisBucketStore store = (RedisBucketStore) store("redis", Duration.ofSeconds(5), FailureMode.DENY);
		Penalty penalty = new Penalty(Duration.ofHours(1));
		BucketDecider decider = store.penalized(penalty);
		RateLimitPolicy policy = new RateLimitPolicy("orders", new KeySource.ClientIp(), false, 1, StoreType.REDIS,
				Map.of("free", TIER), TIER, OnMissingKey.CLIENT_ADDRESS, RateLimitPolicy.DEFAULT_MISSING_KEY_STATUS,
				null, AfterResponse.NONE, penalty);
		Set<Integer> masters = new HashSet<>();
		for (int i = 0; i < CLIENTS; i++) {
			BucketId id = new BucketId("orders", "free", "client-" + i);
			List<Verdict> verdicts = Flux.range(0, 5).concatMap((request) -> decider.acquire(id, TIER, 1))
				.collectList()
				.block();
			assertThat(verdicts).as(id.key()).noneMatch(Verdict::fallback);
			assertThat(verdicts).as(id.key()).filteredOn(Verdict::allowed).hasSize(3);
			assertThat(verdicts.get(3).startedBlock()).as(id.key()).isTrue();
			assertThat(verdicts.get(4).blocked()).as(id.key()).isTrue();
			int master = cluster.masterOf(SlotHash.getSlot("orders:free:" + id.key()));
			masters.add(master);
			assertThat(cluster.node(master).keys("rl:{orders:free:" + id.key() + "}:p1")).as(id.key()).hasSize(1);
		}
		assertThat(masters).hasSize(MASTERS);
		assertThat(store.blocks(policy).collectList().block()).hasSize(CLIENTS);
		Set<Integer> liftedOn = new HashSet<>();
		for (int i = 0; i < CLIENTS && liftedOn.size() < MASTERS; i++) {
			String key = "client-" + i;
			int master = cluster.masterOf(SlotHash.getSlot("orders:free:" + key));
			if (liftedOn.add(master)) {
				assertThat(store.lift(policy, key).block()).isTrue();
				assertThat(cluster.node(master).keys("rl:{orders:free:" + key + "}:p1")).isEmpty();
			}
		}
		assertThat(store.blocks(policy).collectList().block()).hasSize(CLIENTS - MASTERS);
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "hybrid" })
	void aMasterLostUnderTrafficIsAnsweredByOnFailureUntilItIsBack(String storeName) throws Exception {
		BucketStore store = store(storeName, Duration.ofMillis(250), FailureMode.DENY);
		AtomicInteger keys = new AtomicInteger();
		assertRecovers(store, keys);
		Traffic traffic = Traffic.start(store, GENEROUS, 30, 3000);
		Pause.sleep(500);
		cluster.stop(1);
		Pause.sleep(1500);
		cluster.restart(1);
		traffic.assertAllAnsweredWithin(LONGEST_WAIT_MILLIS);
		assertThat(traffic.verdicts()).filteredOn(Verdict::fallback).isNotEmpty().noneMatch(Verdict::allowed);
		assertRecovers(store, keys);
	}

	/**
	 * Within a generous time, Redis decides again, keys on every master included; then
	 * a new key is limited.
	 */
	private static void assertRecovers(BucketStore store, AtomicInteger keys) {
		Pause.untilRecovered("the cluster decides again", () -> {
			for (int i = 0; i < 12; i++) {
				if (store.acquire(new BucketId("orders", "free", "probe-" + keys.incrementAndGet()), GENEROUS, 1)
					.block()
					.fallback()) {
					return false;
				}
			}
			return true;
		});
		Tier one = TestPolicies.tier("one", new FixedWindow(1, Duration.ofDays(1)));
		BucketId id = new BucketId("orders", "one", "limited-" + keys.incrementAndGet());
		Verdict first = store.acquire(id, one, 1).block();
		Verdict second = store.acquire(id, one, 1).block();
		assertThat(first.fallback()).isFalse();
		assertThat(first.allowed()).isTrue();
		assertThat(second.fallback()).isFalse();
		assertThat(second.allowed()).isFalse();
	}

	private BucketStore store(String name, Duration timeout, FailureMode mode) {
		RemoteFailureGuard guard = TestStores.guard(name, mode, 3, Duration.ofMillis(300));
		if (name.equals("hybrid")) {
			HybridBucketStore hybrid = TestStores.hybrid(cluster.template(), timeout, Duration.ofMillis(100), guard);
			this.hybrids.add(hybrid);
			return hybrid;
		}
		return TestStores.redis(cluster.template(), timeout, guard);
	}

}
