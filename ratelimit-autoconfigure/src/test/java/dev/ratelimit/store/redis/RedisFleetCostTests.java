package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.metrics.RateLimitRedisCallMetrics;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.support.ManualClock;
import dev.ratelimit.testsupport.TestPolicies;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a hot bucket costs Redis ({@link SharedCalls}), on a real Redis with two nodes:
 * fewer calls than requests, and never more admitted than one exact bucket admits.
 */
class RedisFleetCostTests {

	/**
	 * Generous, so that a slow test machine never turns a decision into a fallback.
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final Duration STALL_TIMEOUT = Duration.ofMillis(300);

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	private final OwnClients clients = new OwnClients();

	@AfterEach
	void closeClients() {
		this.clients.close();
	}

	@Test
	void twoNodesAtRandomTimingsAndCostsNeverAdmitMoreThanOneExactBucket() {
		for (Limit limit : List.of(new FixedWindow(100, Duration.ofDays(1)),
				new TokenBucket(100, 1, Duration.ofDays(1)), new SlidingWindowLog(100, Duration.ofDays(1)))) {
			Tier tier = TestPolicies.tier("free", limit);
			BucketId id = new BucketId("orders", "free", "hot-" + limit.algorithm().configName());
			RedisBucketStore first = store();
			RedisBucketStore second = store();
			Random random = new Random(7);
			long[] costs = new long[600];
			long[] delays = new long[costs.length];
			for (int i = 0; i < costs.length; i++) {
				costs[i] = 1 + random.nextInt(3);
				delays[i] = random.nextInt(3);
			}
			List<Judged> judged = Flux.range(0, costs.length)
				.flatMap((i) -> Mono.delay(Duration.ofMillis(delays[i]))
					.then(((i % 2 == 0) ? first : second).acquire(id, tier, costs[i]))
					.map((verdict) -> new Judged(costs[i], verdict)), 64)
				.collectList()
				.block();
			assertThat(judged).noneMatch((each) -> each.verdict().fallback());
			long admitted = judged.stream().filter((each) -> each.verdict().allowed()).mapToLong(Judged::cost).sum();
			assertThat(admitted).as(limit.algorithm().configName()).isLessThanOrEqualTo(100);
			// Exact, not merely under: every refused request needed more than what is left.
			assertThat(judged).filteredOn((each) -> !each.verdict().allowed())
				.allMatch((each) -> each.cost() > 100 - admitted);
			long calls = first.decisionCalls() + second.decisionCalls();
			assertThat(calls).as("calls of %s", limit.algorithm().configName()).isLessThan(costs.length);
			assertThat(first.judgedOnRedis() + second.judgedOnRedis() + first.refusedLocally()
					+ second.refusedLocally()).isEqualTo(costs.length);
		}
	}

	@Test
	void aHotBucketRefusedIsAskedAgainOnlyAfterItsRetryAfterAndItsRefusalsAreCounted() {
		Tier tier = TestPolicies.tier("free", new FixedWindow(2, Duration.ofDays(1)));
		RateLimitPolicy policy = TestPolicies.policy("orders", StoreType.REDIS, tier);
		BucketId id = new BucketId("orders", "free", "refused");
		RedisBucketStore store = store();
		for (int i = 0; i < 10; i++) {
			store.acquire(id, tier, 1).block();
		}
		assertThat(store.decisionCalls()).isEqualTo(3);
		assertThat(store.refusedLocally()).isEqualTo(7);
		assertThat(store.health().details()).containsEntry("refusedLocally", 7L).containsEntry("decisionCalls", 3L);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		new RateLimitRedisCallMetrics(store).bindTo(registry);
		assertThat(registry.get(RateLimitRedisCallMetrics.CALLS).functionCounter().count()).isEqualTo(3);
		assertThat(registry.get(RateLimitRedisCallMetrics.DECISIONS).tag("judged", "redis").functionCounter().count())
			.isEqualTo(3);
		assertThat(registry.get(RateLimitRedisCallMetrics.DECISIONS).tag("judged", "locally").functionCounter().count())
			.isEqualTo(7);
		// Another cost is asked, and the call counts the requests refused here as judged.
		store.acquire(id, tier, 2).block();
		assertThat(store.bucket(policy, "refused").blockFirst().requests()).isEqualTo(11);
	}

	@Test
	void aRefundThisNodeSettlesOrAResetEndsItsRefusal() {
		Tier tier = TestPolicies.tier("free", new FixedWindow(1, Duration.ofDays(1)));
		RateLimitPolicy policy = TestPolicies.policy("orders", StoreType.REDIS, tier);
		BucketId id = new BucketId("orders", "free", "refunded");
		RedisBucketStore store = store();
		assertThat(store.acquire(id, tier, 1).block().allowed()).isTrue();
		assertThat(store.acquire(id, tier, 1).block().allowed()).isFalse();
		store.settle(id, tier, Settlement.neverForwarded(1, 0)).block();
		assertThat(store.acquire(id, tier, 1).block().allowed()).isTrue();
		assertThat(store.acquire(id, tier, 1).block().allowed()).isFalse();
		assertThat(store.reset(policy, "refunded").block()).isTrue();
		assertThat(store.acquire(id, tier, 1).block().allowed()).isTrue();
		assertThat(store.refusedLocally()).isZero();
	}

	@Test
	void aRedisStallDuringASharedCallAnswersEveryRequestInItByTheFailureMode() {
		Tier tier = TestPolicies.tier("free", new TokenBucket(1000, 1, Duration.ofDays(1)));
		RateLimitPolicy policy = TestPolicies.policy("orders", StoreType.REDIS, tier);
		BucketId id = new BucketId("orders", "free", "stalled");
		// Stopped: no request's time runs out while it waits, so each goes in a call, and
		// every call is bounded by the whole timeout, enough for it to reach the proxy.
		ManualClock clock = new ManualClock();
		try (TestRedis own = TestRedis.startEmbedded(); StallingProxy proxy = new StallingProxy(own.port())) {
			RedisBucketStore store = TestStores.redis(this.clients.template(proxy.port()), STALL_TIMEOUT,
					TestStores.guard("redis", FailureMode.DENY, 1000, Duration.ofSeconds(1)), clock);
			// Redis answers through the proxy, on another bucket: a call of this one still
			// ending when the stall starts would take the stalled requests with it.
			answeredByRedis(store, new BucketId("orders", "free", "before-stall"), tier);
			long callsBefore = store.decisionCalls();
			long judgedBefore = store.judgedOnRedis();
			proxy.stall();
			List<Verdict> verdicts = Flux.range(0, 20)
				.flatMap((i) -> store.acquire(id, tier, 1), 20)
				.collectList()
				.block(Duration.ofSeconds(5));
			assertThat(verdicts).hasSize(20).allMatch(Verdict::fallback).noneMatch(Verdict::allowed);
			// The first went at once and the rest waited for it, to go together in a call
			// that stalled as well.
			assertThat(store.judgedOnRedis() - judgedBefore).isEqualTo(20);
			assertThat(store.decisionCalls() - callsBefore).isLessThan(20);
			proxy.resume();
			// Read after the stalled calls on the same connection, taking nothing: they
			// reached Redis once resumed and took their units, one a request, no more.
			assertThat(store.bucket(policy, "stalled").blockFirst().limits().get(0).remaining()).isEqualTo(1000 - 20);
			assertThat(answeredByRedis(store, id, tier).allowed()).isTrue();
		}
	}

	/**
	 * The first verdict on {@code id} that Redis gave, not the failure mode.
	 */
	private static Verdict answeredByRedis(RedisBucketStore store, BucketId id, Tier tier) {
		return Mono.defer(() -> store.acquire(id, tier, 1))
			.repeat()
			.filter((verdict) -> !verdict.fallback())
			.blockFirst(Duration.ofSeconds(5));
	}

	private static RedisBucketStore store() {
		return TestStores.redis(redis.template(), TIMEOUT,
				TestStores.guard("redis", FailureMode.DENY, 5, Duration.ofSeconds(1)));
	}

	private record Judged(long cost, Verdict verdict) {
	}

}
