package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Shaping;
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
 * Each algorithm's lean script decides exactly as the generic script: on a real Redis,
 * both judge the same random sequence of costs at the same instants, each on a bucket of
 * its own, and give the same replies and leave the same stored text after every call (for
 * a sliding window log, also the same list and the same expiry set on it), and set the
 * same expiry on the bucket key, never less than the tier's idle timeout. Between the
 * calls, both buckets are sometimes charged past their quota by the generic script, so
 * that the lean script judges the debts it leaves, and keeps them alive, as the generic
 * one does. A concurrency
 * limit has no lean script. Both are
 * assembled from the same algorithm file ({@link ScriptAssembler}); what this holds equal
 * is the rest: the two drivers' reading and writing of the bucket key, and the two ways
 * the assembler puts the sections together (state carried between them, fields written
 * by one {@code string.format} or by {@code exact}, a limit's text kept or rewritten).
 * Redis time cannot be set, so here both scripts read the instant from two keys the test
 * writes in place of {@code TIME}, and the expiries, which Redis would count in its own
 * time, are recorded in a hash instead (a bucket key's set to an hour, so that none
 * expires during the test); everything else runs as shipped.
 */
class LeanScriptEquivalenceTests {

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	private static final String TIME_CALL = "redis.call('TIME')";

	private static final String FAKE_TIME = "{ redis.call('GET', 'fake-time:s'), redis.call('GET', 'fake-time:us') }";

	/**
	 * The script's call that sets a log's expiry, and what the test runs in its place:
	 * the milliseconds recorded under the list's name.
	 */
	private static final String EXPIRY_CALL = "redis.call('PEXPIRE', ";

	private static final String FAKE_EXPIRY = "redis.call('HSET', 'fake-expiry', ";

	/**
	 * The scripts' write of a bucket key with its expiry (the key, the text, the
	 * milliseconds), on a line of its own.
	 */
	private static final Pattern BUCKET_WRITE = Pattern
		.compile("redis\\.call\\('SET', ([^,]+), (.+), 'PX', (.+)\\)$", Pattern.MULTILINE);

	/**
	 * What the test runs in its place: the key written to live an hour, long enough that
	 * none expires in Redis's own time during the test, whatever the random limit, and the
	 * milliseconds the script worked out recorded under its name.
	 */
	private static final String FAKE_BUCKET_WRITE = "redis.call('SET', $1, $2, 'PX', 3600000) "
			+ "redis.call('HSET', 'fake-expiry', $1, $3)";

	private static final int CALLS = 400;

	private static final SlotLease TEST_SLOTS = SlotLease.of(Duration.ofSeconds(30));

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void leanScriptDecidesAndStoresAsTheGenericScript(Algorithm algorithm) {
		StringRedisTemplate template = redis.blockingTemplate();
		@SuppressWarnings("rawtypes")
		RedisScript<List> generic = RedisScript.of(fake(ScriptAssembler.generic()), List.class);
		for (long seed = 1; seed <= 12; seed++) {
			Random random = new Random(seed * 31 + algorithm.ordinal());
			Limit limit = randomLimit(algorithm, random);
			Tier tier = new Tier("free", List.of(limit));
			RedisLayout layout = new RedisLayout("rl", "orders", tier);
			assertThat(layout.leanAlgorithm()).isEqualTo(algorithm);
			@SuppressWarnings("rawtypes")
			RedisScript<List> lean = RedisScript.of(fake(ScriptAssembler.lean(layout.leanLimit())), List.class);
			String client = "seed-" + seed;
			List<String> genericKeys = layout.keys("generic-" + client);
			List<String> leanKeys = layout.leanKeys("lean-" + client);
			String genericBucket = genericKeys.get(genericKeys.size() - 1);
			String leanBucket = leanKeys.get(0);
			// A sliding window log's list: the generic script's first key, the lean's second.
			String genericLog = (algorithm == Algorithm.SLIDING_WINDOW_LOG) ? genericKeys.get(0) : null;
			String leanLog = (algorithm == Algorithm.SLIDING_WINDOW_LOG) ? leanKeys.get(1) : null;
			long periodMicros = periodMicros(limit);
			long idleMillis = Long.parseLong(layout.leanLimit().idleMillis());
			long now = 1_750_000_000_000_000L + random.nextLong(periodMicros);
			if (seed % 3 == 0) {
				// A tier that had a second limit before a reload: its state stays in the text.
				String tag = layout.arguments("acquire", 1, 0, 1, Refund.NONE, Refund.NONE, TEST_SLOTS)
					.get(ScriptProtocol.FIXED_ARGUMENTS + ScriptProtocol.ARGUMENTS_PER_LIMIT - 1);
				// A token bucket's tokens below zero, refilled at now: reservations of a
				// bucket that shaped, or a debt.
				String fields = switch (algorithm) {
					case SLIDING_WINDOW_COUNTER -> "1 2 0";
					case TOKEN_BUCKET -> "-1.5 " + now;
					default -> "1 2";
				};
				String text = "7|" + tag + " " + fields + "|2:1:5:6.0E7:0.0 123 4";
				template.opsForValue().set(genericBucket, text);
				template.opsForValue().set(leanBucket, text);
			}
			if (genericLog != null && seed % 2 == 0) {
				// A log carried over (from a node that ran before, or stored layout 1), long
				// enough to expire in large part on the first call.
				List<String> carried = carriedLog(random, limit.quota(), now, periodMicros);
				template.opsForList().rightPushAll(genericLog, carried);
				template.opsForList().rightPushAll(leanLog, carried);
			}
			// Steps of a period over 8 (a few instants in a log), 100 or 1000 (many).
			long grain = new long[] { 8, 100, 1000 }[random.nextInt(3)];
			for (int call = 0; call < CALLS; call++) {
				now = (random.nextInt(12) == 0) ? edge(template, genericLog, now, periodMicros) - random.nextInt(2)
						: now + step(random, periodMicros, grain);
				long cost = randomCost(random, limit);
				setTime(template, now);
				template.delete("fake-expiry");
				if (random.nextInt(10) == 0) {
					List<String> charge = layout.settleArguments(cost, 0, false, TEST_SLOTS);
					String context = limit + ", seed " + seed + ", charge " + call + " of " + cost + ", at " + now;
					assertThat(call(template, generic, layout.keys("lean-" + client), charge)).as(context)
						.isEqualTo(call(template, generic, genericKeys, charge));
					template.delete("fake-expiry");
				}
				List<Object> expected = call(template, generic, genericKeys,
						layout.arguments("acquire", cost, 0, 1, Refund.NONE, Refund.NONE, TEST_SLOTS));
				List<Object> actual = call(template, lean, leanKeys, layout.leanArguments(cost));
				String context = limit + ", seed " + seed + ", call " + call + ", cost " + cost + ", at " + now;
				assertThat(actual).as(context).isEqualTo(expected);
				assertThat(template.opsForValue().get(leanBucket)).as(context)
					.isEqualTo(template.opsForValue().get(genericBucket));
				Object expiry = template.opsForHash().get("fake-expiry", leanBucket);
				assertThat(expiry).as(context).isEqualTo(template.opsForHash().get("fake-expiry", genericBucket));
				assertThat(Long.parseLong((String) expiry)).as(context).isGreaterThanOrEqualTo(idleMillis);
				if (genericLog != null) {
					assertThat(template.opsForList().range(leanLog, 0, -1)).as(context)
						.isEqualTo(template.opsForList().range(genericLog, 0, -1));
					assertThat(template.opsForHash().get("fake-expiry", leanLog)).as(context)
						.isEqualTo(template.opsForHash().get("fake-expiry", genericLog));
				}
			}
		}
	}

	@Test
	void theFakesReplaceTheOnlyReadOfRedisTimeAndEveryExpiry() {
		String generic = ScriptAssembler.generic();
		assertThat(generic.split("redis\\.call\\('TIME'\\)", -1)).hasSize(2);
		assertThat(generic.split("PEXPIRE", -1)).hasSameSizeAs(generic.split(Pattern.quote(EXPIRY_CALL), -1));
		String leanLog = ScriptAssembler.lean(TestLeanLimits.of(Algorithm.SLIDING_WINDOW_LOG));
		assertThat(leanLog.split("PEXPIRE", -1)).hasSize(2);
		assertThat(leanLog).contains(EXPIRY_CALL);
		assertThat(writes(generic)).isEqualTo(1);
		for (Algorithm algorithm : Algorithm.values()) {
			if (ScriptAssembler.hasLeanForm(algorithm)) {
				String lean = ScriptAssembler.lean(TestLeanLimits.of(algorithm));
				assertThat(lean.split("redis\\.call\\('TIME'\\)", -1)).hasSize(2);
				assertThat(writes(lean)).isEqualTo(1);
			}
		}
	}

	@Test
	void onlyTheConcurrencyLimitHasNoLeanScriptAndItsTierTakesTheGenericOne() {
		assertThat(Algorithm.values()).filteredOn((algorithm) -> !ScriptAssembler.hasLeanForm(algorithm))
			.containsExactly(Algorithm.CONCURRENCY);
		assertThat(new RedisLayout("rl", "orders", new Tier("free", List.of(new Concurrency(2)))).leanAlgorithm())
			.isNull();
	}

	/**
	 * A function in a script is a closure Redis creates on every call: the lean form keeps
	 * its speed by defining none, so no algorithm's load, probe or commit may.
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void aLeanScriptDefinesNoFunction(Algorithm algorithm) {
		assertThat(ScriptAssembler.lean(TestLeanLimits.of(algorithm))).doesNotContainPattern("\\bfunction\\b");
		assertThat(ScriptAssembler.generic()).contains("definitions[" + ScriptProtocol.luaName(algorithm) + "]");
	}

	@Test
	void aTierOfOneLimitTakesItsAlgorithmsLeanScript() {
		Limit bucket = new TokenBucket(10, 1, Duration.ofSeconds(1));
		assertThat(new RedisLayout("rl", "orders", new Tier("free", List.of(bucket))).leanAlgorithm())
			.isEqualTo(Algorithm.TOKEN_BUCKET);
		assertThat(new RedisLayout("rl", "orders",
				new Tier("free", List.of(bucket, new FixedWindow(100, Duration.ofHours(1))))).leanAlgorithm())
			.isNull();
		RedisLayout log = new RedisLayout("rl", "orders",
				new Tier("free", List.of(new SlidingWindowLog(10, Duration.ofMinutes(1)))));
		assertThat(log.leanAlgorithm()).isEqualTo(Algorithm.SLIDING_WINDOW_LOG);
		// The generic script's keys are the log's list, then the bucket key.
		assertThat(log.leanKeys("10.0.0.1")).containsExactly(log.keys("10.0.0.1").get(1), log.keys("10.0.0.1").get(0))
			.containsExactly("rl:{orders:free:10.0.0.1}:b2", "rl:{orders:free:10.0.0.1}:1:2:10:6.0E7:0.0");
	}

	/**
	 * A lean call sends only its cost: the limit is the script's, as the generic script's
	 * arguments give it, so that both compute with the same numbers.
	 */
	@Test
	void aLeanScriptCarriesItsLimitAndItsCallSendsTheCost() {
		RedisLayout layout = new RedisLayout("rl", "orders",
				new Tier("free", List.of(new TokenBucket(10, 2, Duration.ofSeconds(1)))));
		assertThat(layout.leanArguments(3)).containsExactly("3").hasSize(ScriptProtocol.LEAN_ARGUMENTS);
		List<String> generic = layout.arguments("acquire", 3, 0, 1, Refund.NONE, Refund.NONE, TEST_SLOTS);
		int limit = ScriptProtocol.FIXED_ARGUMENTS;
		assertThat(layout.leanLimit()).isEqualTo(new LeanLimit(Algorithm.TOKEN_BUCKET, generic.get(2),
				generic.get(limit + 1), generic.get(limit + 2), generic.get(limit + 3), generic.get(limit + 4),
				generic.get(limit + 5), "|" + generic.get(limit + 6) + " "));
		assertThat(ScriptAssembler.lean(layout.leanLimit()))
			.contains("local quota, period, rate, max_delay, delay_after = 10, 1000000.0, 2.0, 0, 0\n"
					+ "local idle_ms, tagged = " + generic.get(2) + ", '|1:4:10:1000000.0:2.0 '\n")
			.doesNotContain("ARGV[3]");
	}

	/**
	 * A tag is written into the script as a Lua string: any byte but a letter, a digit
	 * and the few a tag is made of is escaped, and Redis stores the tag as it is.
	 */
	@Test
	void aLeanScriptStoresItsTagAsItIsWhateverItHolds() {
		String tag = "|1:1:5:it's \\ \"é\"+\n:0.0 ";
		LeanLimit limit = new LeanLimit(Algorithm.FIXED_WINDOW, "1000", "5", "6.0E7", "0.0", "0", "0", tag);
		StringRedisTemplate template = redis.blockingTemplate();
		@SuppressWarnings("rawtypes")
		List reply = template.execute(RedisScript.of(ScriptAssembler.lean(limit), List.class),
				List.of("rl:{tag:free:client}:b2"), "1");
		assertThat(reply).hasSize(ScriptProtocol.DECISION_VALUES).first().isEqualTo(1L);
		assertThat(template.opsForValue().get("rl:{tag:free:client}:b2")).startsWith("1" + tag);
	}

	@Test
	void aLeanScriptIsRefusedANumberRedisLayoutWouldNotWrite() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ScriptAssembler
				.lean(new LeanLimit(Algorithm.FIXED_WINDOW, "1000", "5", "NaN", "0.0", "0", "0", "|1:1:5:NaN:0.0 ")))
			.withMessageContaining("'NaN'");
	}

	@Test
	void shapingReachesBothScriptsOutsideTheTag() {
		Shaping shaping = new Shaping(Duration.ofMillis(1500), 2);
		RedisLayout layout = new RedisLayout("rl", "orders",
				new Tier("free", List.of(new LeakyBucket(5, 2, Duration.ofSeconds(1), shaping))));
		assertThat(layout.leanLimit()).extracting(LeanLimit::maxDelay, LeanLimit::delayAfter, LeanLimit::tagged)
			.containsExactly("1500000.0", "2", "|1:5:5:1000000.0:2.0 ");
		// A meter's: no hold; the same tag, so that turning shaping on keeps the state.
		RedisLayout meter = new RedisLayout("rl", "orders",
				new Tier("free", List.of(new LeakyBucket(5, 2, Duration.ofSeconds(1)))));
		assertThat(meter.leanLimit()).extracting(LeanLimit::maxDelay, LeanLimit::delayAfter, LeanLimit::tagged)
			.containsExactly("0", "0", "|1:5:5:1000000.0:2.0 ");
		assertThat(meter.keys("a")).isEqualTo(layout.keys("a"));
	}

	private static Limit randomLimit(Algorithm algorithm, Random random) {
		// A log sometimes long: up to 2,000 entries, and costs above 1,000 (pushed in chunks).
		long quota = (algorithm == Algorithm.SLIDING_WINDOW_LOG && random.nextInt(3) == 0) ? 1 + random.nextInt(2_000)
				: 1 + random.nextInt(20);
		Duration period = Duration.ofNanos(1_000 * (1 + random.nextLong(5_000_000)));
		double rate = (random.nextBoolean()) ? 1 + random.nextInt(30) : 0.1 + 30 * random.nextDouble();
		// Half the buckets shape, holding up to a few periods.
		Duration maxDelay = (random.nextBoolean()) ? Duration.ofNanos(1 + random.nextLong(4 * period.toNanos()))
				: null;
		return switch (algorithm) {
			case FIXED_WINDOW -> new FixedWindow(quota, period);
			case SLIDING_WINDOW_COUNTER -> new SlidingWindowCounter(quota, period);
			case TOKEN_BUCKET -> new TokenBucket(quota, rate, period, (maxDelay != null) ? new Shaping(maxDelay) : null);
			case LEAKY_BUCKET -> new LeakyBucket(quota + 1, rate, period,
					(maxDelay != null) ? new Shaping(maxDelay, 1 + random.nextLong(quota)) : null);
			case SLIDING_WINDOW_LOG -> new SlidingWindowLog(quota, period);
			case CONCURRENCY -> new Concurrency(quota);
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
	 * Mostly small steps within a period (up to a {@code grain}th of it), sometimes none,
	 * sometimes past a period or two, sometimes back (another reading of the clock, late).
	 */
	private static long step(Random random, long periodMicros, long grain) {
		return switch (random.nextInt(10)) {
			case 0 -> 0;
			case 1 -> -random.nextLong(1 + periodMicros / 10);
			case 2 -> random.nextLong(1 + 2 * periodMicros);
			default -> random.nextLong(1 + periodMicros / grain);
		};
	}

	/**
	 * The next instant a rule changes at: a log's oldest entry expires (its instant plus
	 * the period, when it no longer counts); otherwise a window ends.
	 */
	private static long edge(StringRedisTemplate template, String log, long now, long periodMicros) {
		String oldest = (log != null) ? template.opsForList().index(log, 0) : null;
		if (oldest != null) {
			return Long.parseLong(oldest) + periodMicros;
		}
		return (now / periodMicros + 1) * periodMicros;
	}

	/**
	 * Up to {@code quota} instants, in order, some repeated (a request of several units),
	 * spread over the two periods before {@code now}.
	 */
	private static List<String> carriedLog(Random random, long quota, long now, long periodMicros) {
		List<String> log = new ArrayList<>();
		long at = now - 2 * periodMicros;
		for (long entries = 1 + random.nextLong(quota); entries > 0; entries--) {
			if (random.nextInt(4) != 0) {
				at = Math.min(now, at + random.nextLong(1 + 4 * periodMicros / (entries + 1)));
			}
			log.add(Long.toString(at));
		}
		return log;
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

	/**
	 * The bucket writes the fake replaces, each the script's only {@code SET} with an
	 * expiry.
	 */
	private static long writes(String source) {
		assertThat(source.split("'PX'", -1)).hasSize(2);
		return BUCKET_WRITE.matcher(source).results().count();
	}

	private static String fake(String source) {
		assertThat(source).contains(TIME_CALL);
		return BUCKET_WRITE.matcher(source.replace(TIME_CALL, FAKE_TIME).replace(EXPIRY_CALL, FAKE_EXPIRY))
			.replaceAll(FAKE_BUCKET_WRITE);
	}

}
