package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.FixedWindow;
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
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

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
	void startUpLoadsEveryScriptBeforeTheFirstRequest(String storeName) {
		start(storeName, redis.template());
		List<String> shas = new ArrayList<>();
		shas.add(RedisScript.of(ScriptAssembler.generic()).getSha1());
		shas.add(RedisScript.of(ScriptAssembler.penalizedGeneric()).getSha1());
		for (Algorithm algorithm : Algorithm.values()) {
			if (ScriptAssembler.hasLeanForm(algorithm)) {
				shas.add(RedisScript.of(ScriptAssembler.lean(algorithm)).getSha1());
				shas.add(RedisScript.of(ScriptAssembler.penalizedLean(algorithm)).getSha1());
			}
		}
		List<Boolean> cached = redis.blockingTemplate()
			.execute((RedisCallback<List<Boolean>>) (connection) -> connection.scriptingCommands()
				.scriptExists(shas.toArray(new String[0])));
		assertThat(cached).hasSize(shas.size()).containsOnly(true);
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


	private static int closedPort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
