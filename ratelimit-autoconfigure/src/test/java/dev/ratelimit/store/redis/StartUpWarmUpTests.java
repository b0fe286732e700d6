package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.AfterResponse;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketStore;
import dev.ratelimit.store.StoreHealth;
import dev.ratelimit.store.hybrid.HybridBucketStore;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a Redis-backed store does at start-up, before the application serves: the
 * connection opened, every script loaded and the decision path exercised on keys of
 * its own, no bucket a client sees touched; and a warning only when Redis fails, never
 * while it is merely slow to answer.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartUpWarmUpTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	/**
	 * A tier named as the warm-up's fixed-window tier, for a policy named as the
	 * warm-up's policy part: the closest a client's bucket comes to the warm-up's keys.
	 */
	private static final Tier LOOKALIKE = TestPolicies.tier("fixed-window", new FixedWindow(5, Duration.ofDays(1)));

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	private final OwnClients clients = new OwnClients();

	private final List<HybridBucketStore> hybrids = new ArrayList<>();

	@AfterEach
	void close() {
		this.hybrids.forEach(HybridBucketStore::stop);
		this.clients.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "hybrid" })
	void startUpLoadsTheGenericScriptsBeforeTheFirstRequest(String storeName) {
		flushScripts();
		start(storeName, redis.template());
		assertThat(cached(List.of(ScriptAssembler.generic(), ScriptAssembler.penalizedGeneric()))).containsOnly(true);
	}

	/**
	 * Each limit has a lean script of its own: start-up loads those of the tiers of one
	 * limit of the store's own policies, the penalized form for a policy with a penalty
	 * box, and none of another store's policies.
	 */
	@Test
	void startUpLoadsTheLeanScriptsOfTheStoresPoliciesBeforeTheFirstRequest() {
		flushScripts();
		Limit bucket = new TokenBucket(7, 3, Duration.ofSeconds(2));
		Limit counter = new SlidingWindowCounter(70, Duration.ofMinutes(3));
		Limit window = new FixedWindow(9, Duration.ofSeconds(9));
		Limit local = new FixedWindow(11, Duration.ofSeconds(11));
		Tier several = TestPolicies.tier("several", new FixedWindow(5, Duration.ofSeconds(5)),
				new FixedWindow(50, Duration.ofMinutes(5)));
		Tier gold = TestPolicies.tier("gold", counter);
		RateLimitPolicy penalized = new RateLimitPolicy("orders", new KeySource.ClientIp(), false, 1,
				StoreType.REDIS, Map.of("free", TestPolicies.tier("free", bucket), "several", several), gold,
				OnMissingKey.CLIENT_ADDRESS, RateLimitPolicy.DEFAULT_MISSING_KEY_STATUS, null, AfterResponse.NONE,
				new Penalty(Duration.ofMinutes(1)));
		TestStores.redis(redis.template(), TIMEOUT, TestStores.guard("redis", FailureMode.DENY, 3,
				Duration.ofMillis(200)), List.of(penalized,
						TestPolicies.policy("search", StoreType.REDIS, TestPolicies.tier("anonymous", window)),
						TestPolicies.policy("local", StoreType.CAFFEINE, TestPolicies.tier("anonymous", local))));
		assertThat(cached(List.of(lean(bucket), lean(counter), lean(window)))).containsOnly(true);
		assertThat(cached(List.of(ScriptAssembler.penalizedLean(TestLeanLimits.of(bucket)),
				ScriptAssembler.penalizedLean(TestLeanLimits.of(counter))))).containsOnly(true);
		assertThat(cached(List.of(ScriptAssembler.penalizedLean(TestLeanLimits.of(window)), lean(local))))
			.containsOnly(false);
	}

	/**
	 * The exact store judges a tier of one limit with its lean script, so its warm-up
	 * exercises each algorithm's; the hybrid store calls none, so its warm-up loads none.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "redis", "hybrid" })
	void onlyTheExactStoresWarmUpLoadsLeanScripts(String storeName) {
		flushScripts();
		start(storeName, redis.template());
		List<String> warmUps = BucketScript.WARM_UP_LIMITS.stream().map(StartUpWarmUpTests::lean).toList();
		assertThat(cached(warmUps)).containsOnly(storeName.equals("redis"));
	}

	@Test
	void theWarmUpTouchesNoClientsBucketAndLeavesOnlyKeysThatExpire() {
		RedisBucketStore first = (RedisBucketStore) start("redis", redis.template());
		BucketId lookalike = new BucketId(RedisLayout.WARM_UP_POLICY, LOOKALIKE.name(), "warm-up");
		assertThat(first.acquire(lookalike, LOOKALIKE, 1).block().reported().remaining()).isEqualTo(4);
		start("redis", redis.get().nodeTemplate());
		assertThat(first.acquire(lookalike, LOOKALIKE, 1).block().reported().remaining()).isEqualTo(3);
		StringRedisTemplate blocking = redis.blockingTemplate();
		Set<String> keys = blocking.keys("*");
		String lookalikeKeys = "rl:{" + RedisLayout.escape(RedisLayout.WARM_UP_POLICY) + ":";
		assertThat(keys).filteredOn((key) -> !key.startsWith(lookalikeKeys))
			.isNotEmpty()
			.allSatisfy((key) -> {
				assertThat(key).startsWith("rl:{" + RedisLayout.WARM_UP_POLICY + ":");
				assertThat(blocking.getExpire(key)).as("seconds %s lives", key).isBetween(0L, 2L);
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "hybrid" })
	void aRedisSlowToAnswerAtStartUpGetsNoWarningAndIsUsedOnceItAnswers(String storeName, CapturedOutput output) {
		try (StallingProxy proxy = new StallingProxy(redis.get().port())) {
			proxy.stall();
			BucketStore store = start(storeName, this.clients.template(proxy.port()));
			assertThat(output).contains("Rate limit store '" + storeName + "' has no answer from Redis yet after "
					+ TestStores.START_UP_WAIT.toMillis() + "ms at start-up")
				.doesNotContain("cannot reach Redis");
			proxy.resume();
			Tier tier = TestPolicies.tier("free", new FixedWindow(1000, Duration.ofDays(1)));
			Pause.untilRecovered("Redis decides once it answers",
					() -> !store.acquire(new BucketId("orders", "free", "late"), tier, 1).block().fallback());
			assertThat(output).doesNotContain("cannot reach Redis");
		}
	}

	@Test
	void aRedisRefusingTheConnectionIsReportedAtOnceAndStartUpGoesOn(CapturedOutput output) {
		Duration wait = Duration.ofMinutes(1);
		long started = System.nanoTime();
		BucketScript script = new BucketScript(this.clients.template(closedPort()), "rl");
		RedisBucketStore store = new RedisBucketStore(script, TIMEOUT,
				TestStores.guard("redis", FailureMode.DENY, 3, Duration.ofSeconds(1)), MonotonicClock.SYSTEM, wait);
		store.afterSingletonsInstantiated();
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(wait.dividedBy(2));
		assertThat(output).contains("Rate limit store 'redis' cannot reach Redis at start-up")
			.doesNotContain("has no answer from Redis yet");
		// Health tells from the start, before any request fails.
		StoreHealth health = store.health();
		assertThat(health.up()).isFalse();
		assertThat(health.details()).containsEntry("remote", "DOWN").containsKey("lastError");
	}

	private BucketStore start(String storeName, ReactiveStringRedisTemplate template) {
		RemoteFailureGuard guard = TestStores.guard(storeName, FailureMode.DENY, 3, Duration.ofMillis(200));
		if (storeName.equals("redis")) {
			return TestStores.redis(template, TIMEOUT, guard);
		}
		HybridBucketStore hybrid = TestStores.hybrid(template, TIMEOUT, Duration.ofMinutes(1), guard);
		this.hybrids.add(hybrid);
		return hybrid;
	}


	private static String lean(Limit limit) {
		return ScriptAssembler.lean(TestLeanLimits.of(limit));
	}

	private static List<Boolean> cached(List<String> scripts) {
		List<Boolean> cached = redis.get().cached(scripts);
		assertThat(cached).hasSize(scripts.size());
		return cached;
	}

	private static void flushScripts() {
		redis.get().flushScripts();
	}

	private static int closedPort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
