package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.Tier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Each algorithm's lean acquire script decides exactly as the generic script: on a real
 * Redis, both judge the same random sequence of costs at the same instants, each on a
 * bucket of its own, and give the same replies and leave the same stored text after
 * every call. Redis time cannot be set, so here both scripts read the instant from two
 * keys the test writes in place of {@code TIME}; everything else runs as shipped.
 */
class LeanScriptEquivalenceTests {

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	private static final String TIME_CALL = "redis.call('TIME')";

	private static final String FAKE_TIME = "{ redis.call('GET', 'fake-time:s'), redis.call('GET', 'fake-time:us') }";

	private static final int CALLS = 400;

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "SLIDING_WINDOW_LOG", mode = EnumSource.Mode.EXCLUDE)
	void leanScriptDecidesAndStoresAsTheGenericScript(Algorithm algorithm) {
		StringRedisTemplate template = redis.blockingTemplate();
		@SuppressWarnings("rawtypes")
		RedisScript<List> generic = RedisScript.of(fakeTime(BucketScript.source()), List.class);
		@SuppressWarnings("rawtypes")
		RedisScript<List> lean = RedisScript.of(fakeTime(BucketScript.leanSource(algorithm)), List.class);
		for (long seed = 1; seed <= 12; seed++) {
			Random random = new Random(seed * 31 + algorithm.ordinal());
			Limit limit = randomLimit(algorithm, random);
			Tier tier = new Tier("free", List.of(limit));
			TierLayout layout = new TierLayout("rl", "orders", tier);
			assertThat(layout.leanAlgorithm()).isEqualTo(algorithm);
			String client = "seed-" + seed;
			List<String> genericKeys = layout.keys("generic-" + client);
			List<String> leanKeys = layout.leanKeys("lean-" + client);
			String genericBucket = genericKeys.get(genericKeys.size() - 1);
			String leanBucket = leanKeys.get(0);
			if (seed % 3 == 0) {
				// A tier that had a second limit before a reload: its state stays in the text.
				String tag = layout.arguments("acquire", 1, 0, 1, Refund.NONE, Refund.NONE)
					.get(ScriptProtocol.FIXED_ARGUMENTS + ScriptProtocol.ARGUMENTS_PER_LIMIT - 1);
				String fields = (algorithm == Algorithm.SLIDING_WINDOW_COUNTER) ? "1 2 0" : "1 2";
				String text = "7|" + tag + " " + fields + "|2:1:5:6.0E7:0.0 123 4";
				template.opsForValue().set(genericBucket, text);
				template.opsForValue().set(leanBucket, text);
			}
			long periodMicros = periodMicros(limit);
			long now = 1_750_000_000_000_000L + random.nextLong(periodMicros);
			for (int call = 0; call < CALLS; call++) {
				now += step(random, periodMicros);
				long cost = randomCost(random, limit);
				setTime(template, now);
				List<Object> expected = call(template, generic, genericKeys,
						layout.arguments("acquire", cost, 0, 1, Refund.NONE, Refund.NONE));
				List<Object> actual = call(template, lean, leanKeys, layout.leanArguments(cost));
				String context = limit + ", seed " + seed + ", call " + call + ", cost " + cost + ", at " + now;
				assertThat(actual).as(context).isEqualTo(expected);
				assertThat(template.opsForValue().get(leanBucket)).as(context)
					.isEqualTo(template.opsForValue().get(genericBucket));
			}
		}
	}

	@Test
	void theFakeTimeReplacesTheOnlyReadOfRedisTime() {
		for (String source : List.of(BucketScript.source(), BucketScript.leanSource(Algorithm.TOKEN_BUCKET))) {
			assertThat(source.split("redis\\.call\\('TIME'\\)", -1)).hasSize(2);
		}
	}

	@Test
	void onlyATierOfOneLimitWithALeanScriptTakesIt() {
		Limit bucket = new TokenBucket(10, 1, Duration.ofSeconds(1));
		assertThat(new TierLayout("rl", "orders", new Tier("free", List.of(bucket))).leanAlgorithm())
			.isEqualTo(Algorithm.TOKEN_BUCKET);
		assertThat(new TierLayout("rl", "orders",
				new Tier("free", List.of(bucket, new FixedWindow(100, Duration.ofHours(1))))).leanAlgorithm())
			.isNull();
		assertThat(new TierLayout("rl", "orders",
				new Tier("free", List.of(new SlidingWindowLog(10, Duration.ofMinutes(1))))).leanAlgorithm())
			.isNull();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BucketScript.leanSource(Algorithm.SLIDING_WINDOW_LOG))
			.withMessageContaining("SLIDING_WINDOW_LOG");
	}

	@Test
	void leanArgumentsAreAsTheProtocolSays() {
		TierLayout layout = new TierLayout("rl", "orders",
				new Tier("free", List.of(new TokenBucket(10, 2, Duration.ofSeconds(1)))));
		List<String> arguments = layout.leanArguments(3);
		assertThat(arguments).hasSize(ScriptProtocol.LEAN_ARGUMENTS);
		List<String> generic = layout.arguments("acquire", 3, 0, 1, Refund.NONE, Refund.NONE);
		int limit = ScriptProtocol.FIXED_ARGUMENTS;
		assertThat(arguments).containsExactly("3", generic.get(2), generic.get(limit + 1), generic.get(limit + 2),
				generic.get(limit + 3), "|" + generic.get(limit + 4) + " ");
	}

	private static Limit randomLimit(Algorithm algorithm, Random random) {
		long quota = 1 + random.nextInt(20);
		Duration period = Duration.ofNanos(1_000 * (1 + random.nextLong(5_000_000)));
		double rate = (random.nextBoolean()) ? 1 + random.nextInt(30) : 0.1 + 30 * random.nextDouble();
		return switch (algorithm) {
			case FIXED_WINDOW -> new FixedWindow(quota, period);
			case SLIDING_WINDOW_COUNTER -> new SlidingWindowCounter(quota, period);
			case TOKEN_BUCKET -> new TokenBucket(quota, rate, period);
			case LEAKY_BUCKET -> new LeakyBucket(quota, rate, period);
			case SLIDING_WINDOW_LOG -> throw new IllegalArgumentException("no lean script");
		};
	}

	private static long periodMicros(Limit limit) {
		if (limit instanceof TokenBucket bucket) {
			return bucket.refillPeriod().toNanos() / 1_000;
		}
		if (limit instanceof LeakyBucket bucket) {
			return bucket.drainPeriod().toNanos() / 1_000;
		}
		return limit.window().toNanos() / 1_000;
	}

	/**
	 * Mostly small steps within a period, sometimes none, sometimes past a period or
	 * two, sometimes back (another reading of the clock, late).
	 */
	private static long step(Random random, long periodMicros) {
		return switch (random.nextInt(10)) {
			case 0 -> 0;
			case 1 -> -random.nextLong(1 + periodMicros / 10);
			case 2 -> random.nextLong(1 + 2 * periodMicros);
			default -> random.nextLong(1 + periodMicros / 8);
		};
	}

	private static long randomCost(Random random, Limit limit) {
		return (random.nextInt(8) == 0) ? 1 + random.nextLong(limit.quota() + 3) : 1;
	}

	private static void setTime(StringRedisTemplate template, long micros) {
		template.opsForValue().set("fake-time:s", Long.toString(micros / 1_000_000));
		template.opsForValue().set("fake-time:us", Long.toString(micros % 1_000_000));
	}

	@SuppressWarnings({ "rawtypes", "unchecked" })
	private static List<Object> call(StringRedisTemplate template, RedisScript<List> script, List<String> keys,
			List<String> arguments) {
		List reply = template.execute(script, keys, arguments.toArray());
		return new ArrayList<>(reply);
	}

	private static String fakeTime(String source) {
		assertThat(source).contains(TIME_CALL);
		return source.replace(TIME_CALL, FAKE_TIME);
	}

}
