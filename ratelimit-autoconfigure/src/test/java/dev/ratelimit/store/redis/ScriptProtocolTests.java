package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.LimitSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.within;

/**
 * The Java side and the Lua script agree on {@link ScriptProtocol}: the Lua files use
 * its names rather than numbers of their own, and every algorithm, in one tier, is
 * judged, checked, leased, settled and described through every mode on a real Redis, so
 * that an argument or reply laid out differently on one side fails here.
 */
class ScriptProtocolTests {

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	/**
	 * One limit of each algorithm that counts units, each of ten, none refilling or
	 * ending within a test.
	 */
	private static final List<Limit> RATE_LIMITS = List.of(new FixedWindow(10, Duration.ofDays(1)),
			new SlidingWindowLog(10, Duration.ofHours(1)), new SlidingWindowCounter(10, Duration.ofDays(1)),
			new TokenBucket(10, 1, Duration.ofHours(1)), new LeakyBucket(10, 1, Duration.ofHours(1)));

	/**
	 * The rate limits in one tier, as a lease takes them (the hybrid store refuses
	 * limits that count requests in flight).
	 */
	private static final Tier RATE_ALGORITHMS = new Tier("free", RATE_LIMITS);

	/**
	 * The rate limits and ten requests in flight.
	 */
	private static final Tier EVERY_ALGORITHM = new Tier("free", Stream
		.concat(RATE_LIMITS.stream(), Stream.of(new Concurrency(10))).toList());

	@Test
	void theTierCoversEveryAlgorithm() {
		assertThat(EVERY_ALGORITHM.limits().stream().map(Limit::algorithm)).containsExactly(Algorithm.values());
	}

	@Test
	void everyAlgorithmIsDefinedInLuaUnderItsProtocolName() {
		String lua = ScriptAssembler.generic();
		for (Algorithm algorithm : Algorithm.values()) {
			assertThat(lua).contains("definitions[" + ScriptProtocol.luaName(algorithm) + "] = function() return {");
		}
		assertThat(lua).as("algorithm codes written as numbers in Lua").doesNotContainPattern("(algorithms|definitions)\\[\\d");
		assertThat(ScriptProtocol.luaConstants()).contains("local FIXED_WINDOW = 1\n", "local LEAKY_BUCKET = 5\n");
	}

	@Test
	void theDriverReadsArgumentsAndWritesRepliesByTheProtocolsNames() throws IOException {
		String driver = read("tier_driver.lua");
		assertThat(driver).contains("FIXED_ARGUMENTS + (i - 1) * ARGUMENTS_PER_LIMIT", "REFUND_LOTS - 1",
				"for j = 1, DECISION_VALUES do", "for j = 1, STATE_VALUES do");
		assertThat(new RedisLayout("rl", "orders", EVERY_ALGORITHM).arguments("acquire", 1, 0, 1, Refund.NONE,
				Refund.NONE, SlotLease.of(Duration.ofSeconds(1)))).hasSize(ScriptProtocol.FIXED_ARGUMENTS
						+ ScriptProtocol.ARGUMENTS_PER_LIMIT * EVERY_ALGORITHM.limits().size());
	}

	@Test
	void everyRateAlgorithmIsJudgedLeasedGivenBackAndDescribedOnRedis() {
		BucketScript script = new BucketScript(redis.template(), "rl");
		RedisLayout layout = script.layouts().layout("orders", RATE_ALGORITHMS);
		Decision[] acquired = script.acquire(layout, "client", 1).block();
		assertThat(acquired).hasSize(5).allSatisfy((decision) -> {
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(9);
			assertThat(decision.limit()).isEqualTo(10);
		});
		BucketScript.LeaseReply lease = script.lease(layout, "client", 1, 3, 2, Refund.NONE, Refund.NONE).block();
		assertThat(lease.granted()).isEqualTo(3);
		assertThat(lease.atMicros()).isPositive();
		// After the lease, each limit judges one more unit against the six left.
		assertThat(lease.decisions()).hasSize(5).allSatisfy((decision) -> {
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(5);
		});
		assertThat(describe(script, layout)).allSatisfy((limit) -> assertThat(limit.remaining()).isEqualTo(6));
		// Both lots of a refund go back: one unit, then two.
		BucketScript.LeaseReply refunded = script
			.lease(layout, "client", 1, 0, 0, new Refund(1, lease.atMicros()), new Refund(2, lease.atMicros()))
			.block();
		assertThat(refunded.granted()).isZero();
		BucketSnapshot snapshot = new BucketReader(script).peek(new BucketId("orders", "free", "client"), layout)
			.block();
		assertThat(snapshot.requests()).isEqualTo(3);
		assertThat(snapshot.limits()).hasSize(5).allSatisfy((limit) -> assertThat(limit.remaining()).isEqualTo(9));
		assertThat(snapshot.limits().stream().map(LimitSnapshot::algorithm))
			.containsExactly(RATE_ALGORITHMS.limits().stream().map((limit) -> limit.algorithm().configName())
				.toArray(String[]::new));
		assertThat(snapshot.limits().get(0).state()).containsEntry("count", 1L);
		assertThat(snapshot.limits().get(2).state()).containsEntry("current", 1L).containsEntry("previous", 0L);
	}

	/**
	 * A check takes only the slot, and reports the rate limits as they stand, the slot
	 * taken; a settlement charges and gives back units on every limit and, the exchange
	 * ended, gives the slot back, replying as a peek; it creates no bucket.
	 */
	@Test
	void everyAlgorithmIsCheckedSettledAndDescribedOnRedis() {
		BucketScript script = new BucketScript(redis.template(), "rl");
		RedisLayout layout = script.layouts().layout("orders", EVERY_ALGORITHM);
		Decision[] checked = script.check(layout, "client", 1).block();
		assertThat(checked).hasSize(6).allMatch(Decision::allowed);
		assertThat(checked).extracting(Decision::remaining).containsExactly(10L, 10L, 10L, 10L, 10L, 9L);
		List<LimitSnapshot> afterCheck = describe(script, layout);
		assertThat(afterCheck.subList(0, 5)).allSatisfy((limit) -> assertThat(limit.remaining()).isEqualTo(10));
		assertThat(afterCheck.get(5).state()).containsOnly(entry("inFlight", 1L));
		assertThat(afterCheck.get(5).remaining()).isEqualTo(9);
		Decision[] charged = script.settle(layout, "client", 3, 0, false).block();
		assertThat(charged).extracting(Decision::remaining).containsExactly(7L, 7L, 7L, 7L, 7L, 9L);
		assertThat(describe(script, layout)).extracting(LimitSnapshot::remaining)
			.containsExactly(7L, 7L, 7L, 7L, 7L, 9L);
		Decision[] ended = script.settle(layout, "client", -2, 0, true).block();
		assertThat(ended).extracting(Decision::remaining).containsExactly(9L, 9L, 9L, 9L, 9L, 10L);
		assertThat(describe(script, layout).get(5).state()).containsOnly(entry("inFlight", 0L));
		// Settling a bucket there is not creates none.
		assertThat(script.settle(layout, "nobody", 1, 0, true).blockOptional()).isEmpty();
		assertThat(redis.template().countExistingKeys(layout.keys("nobody")).block()).isZero();
	}

	/**
	 * A check that admits reports each rate limit as a peek found it just before, with
	 * units taken and charged, the cost not taken; the concurrency limit after taking its
	 * slot.
	 */
	@Test
	void anAdmittingCheckReportsTheRateLimitsAsTheyStand() {
		BucketScript script = new BucketScript(redis.template(), "rl");
		RedisLayout layout = script.layouts().layout("orders", EVERY_ALGORITHM);
		script.acquire(layout, "client", 3).block();
		script.settle(layout, "client", 2, 0, false).block();
		List<LimitSnapshot> before = describe(script, layout);
		assertThat(before).extracting(LimitSnapshot::remaining).containsExactly(5L, 5L, 5L, 5L, 5L, 9L);
		Decision[] checked = script.check(layout, "client", 4).block();
		assertThat(checked).allMatch(Decision::allowed);
		for (int i = 0; i < RATE_LIMITS.size(); i++) {
			assertThat(checked[i].remaining()).as(RATE_LIMITS.get(i).toString()).isEqualTo(before.get(i).remaining());
		}
		assertThat(checked[5].remaining()).isEqualTo(before.get(5).remaining() - 1);
		assertThat(describe(script, layout)).extracting(LimitSnapshot::remaining)
			.containsExactly(5L, 5L, 5L, 5L, 5L, 8L);
	}

	/**
	 * Each algorithm charged five units past its quota of ten refuses every request, its
	 * checks too, until the request fits again; its headers say 0 remaining. None refills
	 * or drains more than a unit an hour, so each wait is known to within the test's run.
	 */
	@Test
	void everyAlgorithmChargedPastItsQuotaRefusesUntilTheRequestFits() {
		BucketScript script = new BucketScript(redis.template(), "rl");
		Duration minute = Duration.ofMinutes(1);
		for (Limit limit : RATE_LIMITS) {
			RedisLayout layout = script.layouts().layout("orders", new Tier("free", List.of(limit)));
			assertThat(script.acquire(layout, "debtor", 1).block()[0].allowed()).isTrue();
			Decision described = script.settle(layout, "debtor", 14, 0, false).block()[0];
			assertThat(described.remaining()).as(limit.toString()).isZero();
			assertThat(described.resetNanos()).as(limit.toString()).isPositive();
			for (Decision refused : List.of(script.acquire(layout, "debtor", 1).block()[0],
					script.check(layout, "debtor", 1).block()[0])) {
				assertThat(refused.allowed()).as(limit.toString()).isFalse();
				assertThat(refused.remaining()).as(limit.toString()).isZero();
				assertThat(refused.resetNanos()).isEqualTo(refused.retryAfterNanos());
				Duration retryAfter = Duration.ofNanos(refused.retryAfterNanos());
				switch (limit.algorithm()) {
					// Fifteen in: six units must drain or refill, one an hour.
					case TOKEN_BUCKET, LEAKY_BUCKET ->
						assertThat(retryAfter).as(limit.toString()).isBetween(Duration.ofHours(6).minus(minute),
								Duration.ofHours(6));
					// All fifteen entries are of this hour, and expire together.
					case SLIDING_WINDOW_LOG ->
						assertThat(retryAfter).as(limit.toString()).isBetween(Duration.ofHours(1).minus(minute),
								Duration.ofHours(1));
					// Until the window ends.
					case FIXED_WINDOW -> assertThat(retryAfter).isPositive().isLessThanOrEqualTo(Duration.ofDays(1));
					// Into the next window, until the fifteen weigh at most nine.
					default -> assertThat(retryAfter).as(limit.toString()).isGreaterThan(Duration.ofHours(9))
						.isLessThanOrEqualTo(Duration.ofDays(2));
				}
			}
			List<LimitSnapshot> snapshot = describe(script, layout, "debtor");
			assertThat(snapshot.get(0).remaining()).as(limit.toString()).isZero();
		}
	}

	/**
	 * The shaping buckets' delays, reservations, queue hold and give-back, with a
	 * metering window beside them: reply values at the protocol's places, and a lease
	 * that meters.
	 */
	@Test
	void shapingBucketsHoldAndGiveBackOnRedis() {
		Duration hour = Duration.ofHours(1);
		Duration tenHours = Duration.ofHours(10);
		Tier tier = new Tier("free", List.of(new TokenBucket(2, 1, hour, new Shaping(tenHours)),
				new LeakyBucket(10, 1, hour, new Shaping(tenHours, 2)), new FixedWindow(10, Duration.ofDays(1))));
		BucketScript script = new BucketScript(redis.template(), "rl");
		RedisLayout layout = script.layouts().layout("orders", tier);
		for (int i = 0; i < 2; i++) {
			assertThat(script.acquire(layout, "client", 1).block())
				.allSatisfy((decision) -> assertThat(decision.delayNanos()).isZero());
		}
		// The token bucket reserves a token an hour away; two units are ahead in the queue,
		// of which one passes at once.
		Decision[] third = script.acquire(layout, "client", 1).block();
		assertThat(third).allMatch(Decision::allowed);
		assertThat(Duration.ofNanos(third[0].delayNanos())).isBetween(hour.minusMinutes(1), hour);
		assertThat(Duration.ofNanos(third[1].delayNanos())).isBetween(hour.minusMinutes(1), hour);
		assertThat(third[2].delayNanos()).isZero();
		List<LimitSnapshot> held = describe(script, layout);
		assertThat(held.get(0).state().get("tokens").doubleValue()).isCloseTo(-1.0, within(0.01));
		assertThat(held.get(1).state()).containsOnlyKeys("level", "hold");
		assertThat(held.get(1).state().get("level").doubleValue()).isCloseTo(3.0, within(0.01));
		assertThat(held.get(1).state().get("hold").doubleValue()).isCloseTo(2 * 3600.0, within(10.0));
		// A lease meters: no token, so refused at once rather than held.
		BucketScript.LeaseReply lease = script.lease(layout, "client", 1, 0, 0, Refund.NONE, Refund.NONE).block();
		assertThat(lease.granted()).isZero();
		assertThat(lease.decisions()[0].allowed()).isFalse();
		assertThat(lease.decisions()).allSatisfy((decision) -> assertThat(decision.delayNanos()).isZero());
		script.settle(layout, "client", -1, 0, false).block();
		List<LimitSnapshot> givenBack = describe(script, layout);
		assertThat(givenBack.get(0).state().get("tokens").doubleValue()).isCloseTo(0.0, within(0.01));
		assertThat(givenBack.get(1).state().get("level").doubleValue()).isCloseTo(2.0, within(0.01));
		assertThat(givenBack.get(2).state()).containsEntry("count", 2L);
		assertThat(new BucketReader(script).peek(new BucketId("orders", "free", "client"), layout).block().requests())
			.isEqualTo(3);
	}

	/**
	 * Each penalized form, lean and generic, replies the penalty's values at the
	 * protocol's places: nothing done, then the block a breach started, in front of the
	 * decisions; then the block in force alone. The unpenalized forms hold none of it.
	 */
	@Test
	void everyPenalizedFormRepliesThePenaltyInFrontOfItsDecisions() {
		String places = "(?m)^--@(blocked|breach)$";
		assertThat(ScriptAssembler.generic()).doesNotContain("block_key").doesNotContainPattern(places);
		assertThat(ScriptAssembler.penalizedGeneric()).contains("local block_key = table.remove(KEYS)")
			.doesNotContainPattern(places);
		BucketScript script = new BucketScript(redis.template(), "rl");
		RedisPenalty penalty = new RedisPenalty(new Penalty(Duration.ofHours(1)));
		List<Limit> oneUnitLimits = List.of(new FixedWindow(1, Duration.ofDays(1)),
				new SlidingWindowLog(1, Duration.ofHours(1)), new SlidingWindowCounter(1, Duration.ofDays(1)),
				new TokenBucket(1, 1, Duration.ofHours(1)), new LeakyBucket(1, 1, Duration.ofHours(1)));
		for (Limit limit : oneUnitLimits) {
			assertThat(ScriptAssembler.lean(TestLeanLimits.of(limit))).doesNotContain("block_key")
				.doesNotContainPattern(places);
			assertThat(ScriptAssembler.penalizedLean(TestLeanLimits.of(limit))).contains("local block_key")
				.doesNotContainPattern(places);
			// Its lean form, and the generic one beside a limit of requests in flight.
			for (Tier tier : List.of(new Tier("free", List.of(limit)),
					new Tier("free", List.of(limit, new Concurrency(10))))) {
				RedisLayout layout = script.layouts().layout("orders", tier);
				String client = limit.algorithm() + "-" + tier.limits().size();
				Verdict admitted = script.acquire(layout, client, 1, penalty).block();
				assertThat(admitted.allowed()).as(client).isTrue();
				assertThat(admitted.block()).as(client).isNull();
				Verdict breach = script.acquire(layout, client, 1, penalty).block();
				assertThat(breach.startedBlock()).as(client).isTrue();
				assertThat(breach.limitCount()).as(client).isEqualTo(tier.limits().size());
				assertThat(breach.block().step()).isEqualTo(1);
				assertThat(breach.block().forgivenNanos()).isEqualTo(breach.block().untilNanos());
				Verdict blocked = script.acquire(layout, client, 1, penalty).block();
				assertThat(blocked.blocked()).as(client).isTrue();
				assertThat(blocked.block()).isEqualTo(breach.block());
				assertThat(script.check(layout, client, 1, penalty).block().blocked()).as(client).isTrue();
				assertThat(script.peekBlock(layout, client).block()).hasSize(ScriptProtocol.BLOCK_PEEK_VALUES);
			}
		}
	}

	private static List<LimitSnapshot> describe(BucketScript script, RedisLayout layout) {
		return describe(script, layout, "client");
	}

	private static List<LimitSnapshot> describe(BucketScript script, RedisLayout layout, String key) {
		return new BucketReader(script).peek(new BucketId("orders", "free", key), layout).block().limits();
	}

	private static String read(String file) throws IOException {
		try (InputStream in = ScriptAssembler.class.getResourceAsStream(file)) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}
