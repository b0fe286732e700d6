package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The redis store's check and settlement: a check takes nothing of a rate limit, a
 * settlement charges past the quota (and the debt refuses, the bucket kept until it is
 * repaid), gives back, answers with the limits after it, and creates no bucket. While Redis fails, a check is decided by the
 * failure mode as an acquire is, a request the failure mode admitted is settled where it
 * decided, and any other settlement errors, counted against the breaker, never
 * retried.
 */
class RedisSettlementTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	/**
	 * Short, for the stalled Redis's timeouts.
	 */
	private static final Duration STALL_TIMEOUT = Duration.ofMillis(250);

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	private final OwnClients clients = new OwnClients();

	private final BucketId id = new BucketId("orders", "free", "client");

	@AfterEach
	void closeClients() {
		this.clients.close();
	}

	/**
	 * count-responses: checks take nothing, each counted response is charged, and once the
	 * quota is spent every request is refused, more so once charged past it.
	 */
	@Test
	void checksTakeNothingAndChargesPastTheQuotaRefuseEveryRequest() {
		Tier tier = TestPolicies.tier("free", new FixedWindow(3, Duration.ofDays(1)));
		RedisBucketStore store = store(redis.template(), FailureMode.DENY);
		for (int i = 0; i < 5; i++) {
			assertThat(store.check(this.id, tier, 1).block().allowed()).isTrue();
		}
		assertThat(remaining(store.settle(this.id, tier, charge(1)).block())).isEqualTo(2);
		assertThat(remaining(store.settle(this.id, tier, charge(2)).block())).isZero();
		assertThat(store.check(this.id, tier, 1).block().allowed()).isFalse();
		assertThat(remaining(store.settle(this.id, tier, charge(4)).block())).isZero();
		Verdict refused = store.acquire(this.id, tier, 1).block();
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.reported().remaining()).isZero();
		assertThat(refused.retryAfterNanos()).isPositive();
	}

	/**
	 * cost-from-response: the estimate taken before, then the difference, charged or
	 * given back; the verdict says what is left.
	 */
	@Test
	void theActualCostReplacesTheEstimate() {
		Tier tier = TestPolicies.tier("free", new TokenBucket(10, 1, Duration.ofHours(1)));
		RedisBucketStore store = store(redis.template(), FailureMode.DENY);
		assertThat(store.acquire(this.id, tier, 2).block().allowed()).isTrue();
		assertThat(remaining(store.settle(this.id, tier, charge(5)).block())).isEqualTo(3);
		assertThat(store.acquire(this.id, tier, 2).block().allowed()).isTrue();
		assertThat(remaining(store.settle(this.id, tier, new Settlement(-1, 1_000_000, true, false)).block()))
			.isEqualTo(2);
		// Eight past the two left: refused until the tokens are back above zero and one.
		assertThat(remaining(store.settle(this.id, tier, charge(10)).block())).isZero();
		Verdict refused = store.acquire(this.id, tier, 1).block();
		assertThat(refused.allowed()).isFalse();
		assertThat(Duration.ofNanos(refused.retryAfterNanos())).isGreaterThan(Duration.ofHours(8));
	}

	/**
	 * A debt outlives the tier's idle timeout: the bucket key, a token bucket below empty
	 * or a leaky bucket above full, lives until the debt is repaid (36,001 units, one
	 * each 100ms: an hour and 100ms from the charge), and a request once the idle
	 * timeout (100ms) has passed on Redis's clock is still refused, its rejection, by the
	 * lean script, leaving the expiry as long.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "token-bucket", "leaky-bucket" })
	void aDebtIsNotForgivenWhenTheIdleTimeoutPasses(String algorithm) {
		Duration tenth = Duration.ofMillis(100);
		Limit limit = algorithm.equals("token-bucket") ? new TokenBucket(1, 1, tenth) : new LeakyBucket(1, 1, tenth);
		Tier tier = TestPolicies.tier("free", limit);
		assertThat(tier.idleTimeout()).isEqualTo(tenth);
		RedisBucketStore store = store(redis.template(), FailureMode.DENY);
		assertThat(store.acquire(this.id, tier, 1).block().allowed()).isTrue();
		long chargedAt = redisTimeMicros();
		assertThat(remaining(store.settle(this.id, tier, charge(36_000)).block())).isZero();
		String bucket = new RedisLayout("rl", "orders", tier).leanKeys(this.id.key()).get(0);
		Duration repaid = Duration.ofHours(1).plus(tenth);
		assertThat(pttl(bucket)).isBetween(repaid.minusMinutes(1), repaid);
		await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(20))
			.until(() -> redisTimeMicros() > chargedAt + 2 * tenth.toNanos() / 1000);
		Verdict refused = store.acquire(this.id, tier, 1).block();
		assertThat(refused.allowed()).isFalse();
		assertThat(Duration.ofNanos(refused.retryAfterNanos())).isGreaterThan(Duration.ofMinutes(59));
		assertThat(pttl(bucket)).isBetween(repaid.minusMinutes(1), repaid);
	}

	@Test
	void aSettlementCreatesNoBucketAndAnswersWithNone() {
		Tier tier = TestPolicies.tier("free", new FixedWindow(3, Duration.ofDays(1)), new Concurrency(2));
		RedisBucketStore store = store(redis.template(), FailureMode.DENY);
		assertThat(store.settle(this.id, tier, new Settlement(2, 0, true, false)).blockOptional()).isEmpty();
		RedisLayout layout = new RedisLayout("rl", "orders", tier);
		assertThat(redis.template().countExistingKeys(layout.keys(this.id.key())).block()).isZero();
	}

	@Test
	void whileRedisStallsACheckIsDecidedByTheFailureMode() {
		Tier tier = TestPolicies.tier("free", new FixedWindow(3, Duration.ofDays(1)));
		try (TestRedis own = TestRedis.startEmbedded(); StallingProxy proxy = new StallingProxy(own.port())) {
			RecordingLocalStore local = new RecordingLocalStore();
			RedisBucketStore allow = stalled(proxy, FailureMode.ALLOW, local);
			RedisBucketStore deny = stalled(proxy, FailureMode.DENY, local);
			RedisBucketStore onLocal = stalled(proxy, FailureMode.LOCAL, local);
			proxy.stall();
			assertThat(allow.check(this.id, tier, 1).block()).isSameAs(Verdict.FAIL_OPEN);
			Verdict denied = deny.check(this.id, tier, 1).block();
			assertThat(denied.fallback()).isTrue();
			assertThat(denied.allowed()).isFalse();
			Verdict locally = onLocal.check(this.id, tier, 1).block();
			assertThat(locally.fallback()).isTrue();
			assertThat(locally.allowed()).isTrue();
			assertThat(locally.reported().remaining()).isEqualTo(RecordingLocalStore.CHECKED.remaining());
			assertThat(local.checks).containsExactly(1L);
			assertThat(local.acquires).isEmpty();
			// The breakers are open now: decided at once, the same way.
			assertThat(allow.check(this.id, tier, 1).block()).isSameAs(Verdict.FAIL_OPEN);
			assertThat(onLocal.check(this.id, tier, 1).block().fallback()).isTrue();
			assertThat(local.checks).containsExactly(1L, 1L);
		}
	}

	/**
	 * A request a failure mode admitted is settled where it was decided, without calling
	 * the stalled Redis: on the local store, or nowhere when no limit was consulted.
	 */
	@Test
	void aRequestTheFailureModeAdmittedIsSettledWhereItWasDecided() {
		Tier tier = TestPolicies.tier("free", new FixedWindow(3, Duration.ofDays(1)));
		Settlement settlement = new Settlement(2, 0, true, true);
		try (TestRedis own = TestRedis.startEmbedded(); StallingProxy proxy = new StallingProxy(own.port())) {
			RecordingLocalStore local = new RecordingLocalStore();
			RedisBucketStore allow = stalled(proxy, FailureMode.ALLOW, local);
			RedisBucketStore onLocal = stalled(proxy, FailureMode.LOCAL, local);
			proxy.stall();
			assertThat(allow.settle(this.id, tier, settlement).blockOptional(Duration.ofSeconds(1))).isEmpty();
			assertThat(onLocal.settle(this.id, tier, settlement).block(Duration.ofSeconds(1)))
				.isSameAs(RecordingLocalStore.CHECKED);
			assertThat(local.settlements).containsExactly(settlement);
			assertThat(onLocal.health().details()).containsEntry("circuitBreaker", "closed");
		}
	}

	/**
	 * Any other settlement while Redis stalls times out with an error counted against the
	 * breaker, then errors without calling Redis while it is open; the node stops
	 * counting the ended request's slot, which then expires with its lease.
	 */
	@Test
	void aSettlementWhileRedisStallsErrorsAndIsNeverRetried() {
		Tier tier = TestPolicies.tier("free", new Concurrency(2));
		try (TestRedis own = TestRedis.startEmbedded(); StallingProxy proxy = new StallingProxy(own.port())) {
			RemoteFailureGuard guard = TestStores.guard("redis", FailureMode.LOCAL, 1, Duration.ofMinutes(1));
			RedisBucketStore store = TestStores.redis(this.clients.template(proxy.port()), STALL_TIMEOUT, guard);
			assertThat(store.acquire(this.id, tier, 1).block().fallback()).isFalse();
			assertThat(store.acquire(this.id, tier, 1).block().fallback()).isFalse();
			assertThat(store.slotsHeld(this.id, tier)).isEqualTo(2);
			proxy.stall();
			assertThatThrownBy(() -> store.settle(this.id, tier, new Settlement(1, 0, true, false)).block())
				.hasCauseInstanceOf(TimeoutException.class);
			assertThat(guard.healthDetails()).containsEntry("circuitBreaker", "open").containsEntry("fallbacks", 0L);
			assertThatThrownBy(() -> store.settle(this.id, tier, new Settlement(0, 0, true, false)).block())
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("circuit breaker is open");
			assertThat(store.slotsHeld(this.id, tier)).isZero();
		}
	}

	private RedisBucketStore stalled(StallingProxy proxy, FailureMode mode, BucketDecider local) {
		CircuitBreaker breaker = new CircuitBreaker(MonotonicClock.SYSTEM, 1, Duration.ofMinutes(1).toNanos());
		RemoteFailureGuard guard = new RemoteFailureGuard("redis", mode, breaker, Duration.ofSeconds(1), local,
				MonotonicClock.SYSTEM);
		return TestStores.redis(this.clients.template(proxy.port()), STALL_TIMEOUT, guard);
	}

	private static Duration pttl(String key) {
		return redis.template().getExpire(key).block();
	}

	private static long redisTimeMicros() {
		return redis.template()
			.execute((connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS))
			.map(Number.class::cast)
			.blockFirst()
			.longValue();
	}

	private static Settlement charge(long units) {
		return new Settlement(units, 0, false, false);
	}

	private static long remaining(Verdict verdict) {
		return verdict.reported().remaining();
	}

	private static RedisBucketStore store(ReactiveStringRedisTemplate template, FailureMode mode) {
		return TestStores.redis(template, TIMEOUT, TestStores.guard("redis", mode, 5, Duration.ofSeconds(1)));
	}

	/**
	 * A local store that answers every check and settlement with one verdict and
	 * records them.
	 */
	private static final class RecordingLocalStore implements BucketDecider {

		static final Decision CHECKED = new Decision(true, 2, 3, 1_000_000_000L, 0);

		final List<Long> checks = new CopyOnWriteArrayList<>();

		final List<Long> acquires = new CopyOnWriteArrayList<>();

		final List<Settlement> settlements = new CopyOnWriteArrayList<>();

		@Override
		public String name() {
			return "caffeine";
		}

		@Override
		public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
			this.acquires.add(cost);
			return Mono.just(CHECKED);
		}

		@Override
		public Mono<Verdict> check(BucketId id, Tier tier, long cost) {
			this.checks.add(cost);
			return Mono.just(CHECKED);
		}

		@Override
		public Mono<Verdict> settle(BucketId id, Tier tier, Settlement settlement) {
			this.settlements.add(settlement);
			return Mono.just(CHECKED);
		}

	}

}
