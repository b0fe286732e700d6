package dev.ratelimit.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.algorithm.Bucket;
import dev.ratelimit.algorithm.CalendarPeriods;
import dev.ratelimit.algorithm.CalendarPeriods.Unit;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

/**
 * The scripts place calendar periods exactly as the Java algorithms do: on a real Redis,
 * the lean and the generic script judge the same costs at the same instants as
 * {@link Bucket} does, across month ends (January to February, the 28th and 29th of
 * February in leap and common years, December to January), ISO weeks and the days of
 * Paris's clock changes (23 and 25 hours long), with late readings, charges and refunds
 * among them; the gateway's clock, which the periods sent are placed around, is on time,
 * ahead of or behind Redis's by up to a minute and a half. Every call must give the same
 * admission, remaining, reset and retry-after (a sliding window counter's and a token
 * bucket's, rounded differently, within a few microseconds), and leave the same counts.
 * <p>
 * Redis time cannot be set, so both scripts read the instant from two keys the test
 * writes in place of {@code TIME}, as {@link LeanScriptEquivalenceTests} does; every
 * instant is a whole microsecond, Redis's unit.
 */
class CalendarScriptEquivalenceTests {

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	private static final String TIME_CALL = "redis.call('TIME')";

	private static final String FAKE_TIME = "{ redis.call('GET', 'fake-time:s'), redis.call('GET', 'fake-time:us') }";

	private static final SlotLease SLOTS = SlotLease.of(Duration.ofSeconds(30));

	private static final ZoneId UTC = ZoneId.of("UTC");

	private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

	/**
	 * The boundaries the scenarios run across, each with the periods it ends.
	 */
	private static final List<Crossing> CROSSINGS = List.of(
			new Crossing("2025-02-01T00:00:00Z", CalendarPeriods.of(Unit.MONTH, UTC)),
			new Crossing("2024-02-29T00:00:00Z", CalendarPeriods.of(Unit.DAY, UTC)),
			new Crossing("2024-03-01T00:00:00Z", CalendarPeriods.of(Unit.MONTH, UTC)),
			new Crossing("2023-03-01T00:00:00Z", CalendarPeriods.of(Unit.MONTH, UTC)),
			new Crossing("2025-01-01T00:00:00Z", CalendarPeriods.of(Unit.YEAR, UTC)),
			new Crossing("2024-12-31T23:00:00Z", CalendarPeriods.of(Unit.MONTH, PARIS)),
			new Crossing("2025-01-06T00:00:00Z", CalendarPeriods.of(Unit.WEEK, UTC)),
			// Paris: Sunday 2024-03-31 lasts 23 hours, Sunday 2024-10-27 25 hours.
			new Crossing("2024-03-30T23:00:00Z", CalendarPeriods.of(Unit.DAY, PARIS)),
			new Crossing("2024-03-31T22:00:00Z", CalendarPeriods.of(Unit.DAY, PARIS)),
			new Crossing("2024-10-26T22:00:00Z", CalendarPeriods.of(Unit.DAY, PARIS)),
			new Crossing("2024-10-27T23:00:00Z", CalendarPeriods.of(Unit.DAY, PARIS)),
			new Crossing("2024-10-31T23:00:00Z", CalendarPeriods.of(Unit.MONTH, PARIS)));

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> GENERIC = RedisScript.of(fake(ScriptAssembler.generic()), List.class);

	/**
	 * The lean scripts by limit, each assembled once.
	 */
	@SuppressWarnings("rawtypes")
	private static final Map<LeanLimit, RedisScript<List>> LEAN = new ConcurrentHashMap<>();

	private final AtomicLong gatewayNanos = new AtomicLong();

	@ParameterizedTest
	@ValueSource(longs = { 0, 90, -90 })
	void aFixedWindowInCalendarPeriodsDecidesAsInJava(long gatewayAheadSeconds) {
		for (Crossing crossing : CROSSINGS) {
			judgeAlike(new Tier("free", List.of(FixedWindow.inCalendar(5, crossing.periods()))), crossing,
					gatewayAheadSeconds);
		}
	}

	@ParameterizedTest
	@ValueSource(longs = { 0, 90, -90 })
	void aSlidingWindowCounterInCalendarPeriodsDecidesAsInJava(long gatewayAheadSeconds) {
		for (Crossing crossing : CROSSINGS) {
			judgeAlike(new Tier("free", List.of(SlidingWindowCounter.inCalendar(5, crossing.periods()))), crossing,
					gatewayAheadSeconds);
		}
	}

	@Test
	void aTierOfSeveralCalendarsDecidesAsInJava() {
		// Two periods arguments after the limits' own, in the tier's order.
		Tier tier = new Tier("free",
				List.of(SlidingWindowCounter.inCalendar(8, CalendarPeriods.of(Unit.DAY, PARIS)),
						new TokenBucket(20, 1, Duration.ofMinutes(10)),
						FixedWindow.inCalendar(6, CalendarPeriods.of(Unit.MONTH, UTC))));
		judgeAlike(tier, new Crossing("2024-10-31T23:00:00Z", CalendarPeriods.of(Unit.DAY, PARIS)), 30);
	}

	@Test
	void redisTimeOutsideThePeriodsSentFailsTheCall() {
		Tier tier = new Tier("free", List.of(FixedWindow.inCalendar(5, CalendarPeriods.of(Unit.MONTH, UTC))));
		RedisLayout layout = new RedisLayout("rl", "orders", tier, this.gatewayNanos::get);
		// The gateway's clock in March: the periods sent run from February to June.
		setTime(at("2025-01-15T00:00:00Z"), Duration.ofDays(59).toSeconds());
		StringRedisTemplate template = redis.blockingTemplate();
		assertThatExceptionOfType(RedisSystemException.class)
			.isThrownBy(() -> call(template, lean(layout), layout.leanKeys("client"), layout.leanArguments(1)))
			.withStackTraceContaining("is outside the calendar periods the gateway sent");
		assertThatExceptionOfType(RedisSystemException.class)
			.isThrownBy(() -> call(template, generic(), layout.keys("client"),
					layout.arguments("acquire", 1, 0, 1, Refund.NONE, Refund.NONE, SLOTS)))
			.withStackTraceContaining("is outside the calendar periods the gateway sent");
	}

	@Test
	void aCalendarsUnitAndZoneArePartOfItsTag() {
		List<String> keys = new ArrayList<>();
		for (Limit limit : List.of(FixedWindow.inCalendar(5, CalendarPeriods.of(Unit.MONTH, UTC)),
				FixedWindow.inCalendar(5, CalendarPeriods.of(Unit.MONTH, PARIS)),
				FixedWindow.inCalendar(5, CalendarPeriods.of(Unit.WEEK, UTC)),
				SlidingWindowCounter.inCalendar(5, CalendarPeriods.of(Unit.MONTH, UTC)),
				new FixedWindow(5, Duration.ofDays(31)))) {
			keys.add(new RedisLayout("rl", "orders", new Tier("free", List.of(limit))).keys("client").get(0));
		}
		assertThat(keys).containsExactly("rl:{orders:free:client}:1:1:5:month@UTC:0.0",
				"rl:{orders:free:client}:1:1:5:month@Europe/Paris:0.0", "rl:{orders:free:client}:1:1:5:week@UTC:0.0",
				"rl:{orders:free:client}:1:3:5:month@UTC:0.0", "rl:{orders:free:client}:1:1:5:2.6784E12:0.0");
	}

	@Test
	void theArgumentsCarryThePeriodsAroundTheGatewaysClock() {
		CalendarPeriods months = CalendarPeriods.of(Unit.MONTH, UTC);
		Tier tier = new Tier("free", List.of(FixedWindow.inCalendar(5, months)));
		RedisLayout layout = new RedisLayout("rl", "orders", tier, this.gatewayNanos::get);
		this.gatewayNanos.set(at("2025-02-10T00:00:00Z"));
		String periods = (months.index(at("2025-01-10T00:00:00Z"))) + " " + micros("2025-01-01T00:00:00Z") + " "
				+ micros("2025-02-01T00:00:00Z") + " " + micros("2025-03-01T00:00:00Z") + " "
				+ micros("2025-04-01T00:00:00Z") + " " + micros("2025-05-01T00:00:00Z");
		assertThat(layout.leanArguments(1)).hasSize(ScriptProtocol.LEAN_ARGUMENTS + 1).last().isEqualTo(periods);
		List<String> arguments = layout.arguments("acquire", 1, 0, 1, Refund.NONE, Refund.NONE, SLOTS);
		assertThat(arguments).hasSize(ScriptProtocol.FIXED_ARGUMENTS + ScriptProtocol.ARGUMENTS_PER_LIMIT + 1)
			.last()
			.isEqualTo(periods);
	}

	/**
	 * Judges a random sequence of costs at instants around the crossing on Java's bucket,
	 * the lean script (a tier of one limit) and the generic one, and requires the same
	 * decisions of all three, and the same counts of Java and the generic script's peek.
	 * Between the requests, the bucket is sometimes charged, or given back a unit of the
	 * request before. A late reading (an instant before the last, across the boundary when
	 * it was just crossed) follows only a request every limit admitted: a script stores
	 * what it rolled to only when it writes the bucket, where Java's state rolls on any
	 * call, so only then do the two hold the same period for a reading to be late in.
	 */
	private void judgeAlike(Tier tier, Crossing crossing, long gatewayAheadSeconds) {
		StringRedisTemplate template = redis.blockingTemplate();
		redis.get().flushAll();
		RedisLayout layout = new RedisLayout("rl", "orders", tier, this.gatewayNanos::get);
		Random random = new Random(crossing.at().hashCode() + 31L * crossing.periods().toString().hashCode()
				+ gatewayAheadSeconds);
		long boundary = at(crossing.at());
		long end = boundary + Duration.ofHours(2).toNanos();
		long now = boundary - Duration.ofHours(2).toNanos();
		Bucket bucket = Bucket.of(tier.limits(), now);
		boolean admitted = acquireAlike(template, layout, bucket, now, 1, crossing, gatewayAheadSeconds);
		while (now < end) {
			if (admitted && random.nextInt(3) == 0) {
				long late = (now >= boundary && now - boundary < Duration.ofMinutes(1).toNanos()) ? boundary - 1_000
						: now - 1_000L * random.nextInt(1_000);
				acquireAlike(template, layout, bucket, late, 1, crossing, gatewayAheadSeconds);
			}
			long previous = now;
			now = next(now, boundary, random);
			long cost = (random.nextInt(6) == 0) ? 1 + random.nextInt(4) : 1;
			switch (random.nextInt(10)) {
				case 0 -> settleAlike(template, layout, bucket, now, cost, now, gatewayAheadSeconds);
				case 1 -> settleAlike(template, layout, bucket, now, -1, previous, gatewayAheadSeconds);
				default -> admitted = acquireAlike(template, layout, bucket, now, cost, crossing, gatewayAheadSeconds);
			}
		}
	}

	/**
	 * One request of {@code cost} at {@code now}, judged alike by Java and both scripts.
	 * @return whether every limit admitted it
	 */
	private boolean acquireAlike(StringRedisTemplate template, RedisLayout layout, Bucket bucket, long now, long cost,
			Crossing crossing, long gatewayAheadSeconds) {
		Tier tier = layout.tier();
		setTime(now, gatewayAheadSeconds);
		String context = tier.limits() + " across " + crossing.at() + ", gateway " + gatewayAheadSeconds
				+ "s ahead, " + cost + " at " + Instant.ofEpochSecond(0, now);
		Verdict verdict = bucket.tryAcquire(now, cost);
		Decision[] expected = decisions(verdict, tier);
		Decision[] generic = ScriptReplies.decisions(tier, call(template, generic(), layout.keys("generic"),
				layout.arguments("acquire", cost, 0, 1, Refund.NONE, Refund.NONE, SLOTS)), 0);
		assertAlike(generic, expected, tier, context + " (generic)");
		if (layout.leanAlgorithm() != null) {
			Decision[] lean = ScriptReplies.decisions(tier,
					call(template, lean(layout), layout.leanKeys("lean"), layout.leanArguments(cost)), 0);
			assertAlike(lean, expected, tier, context + " (lean)");
			assertThat(template.opsForValue().get(layout.leanKeys("lean").get(0))).as(context)
				.isEqualTo(template.opsForValue().get(layout.keys("generic").get(tier.limits().size())));
		}
		List<Object> peek = call(template, generic(), layout.keys("generic"),
				layout.arguments("peek", 0, 0, 0, Refund.NONE, Refund.NONE, SLOTS));
		for (int i = 0; i < tier.limits().size(); i++) {
			if (tier.limits().get(i).calendar() != null) {
				int at = ScriptProtocol.PEEK_HEADER_VALUES + i * ScriptProtocol.PEEK_VALUES + 2;
				List<Number> counts = new ArrayList<>(bucket.describe(i, now).values());
				assertThat(peek.get(at)).as(context).hasToString(counts.get(0).toString());
				if (counts.size() > 1) {
					assertThat(peek.get(at + 1)).as(context).hasToString(counts.get(1).toString());
				}
			}
		}
		return verdict.allowed();
	}

	/**
	 * {@code units} charged (above 0) or given back as taken at {@code consumedAt}
	 * (below), in Java and in both scripts' buckets.
	 */
	private void settleAlike(StringRedisTemplate template, RedisLayout layout, Bucket bucket, long now, long units,
			long consumedAt, long gatewayAheadSeconds) {
		setTime(now, gatewayAheadSeconds);
		bucket.settle(now, units, consumedAt, false);
		List<String> arguments = layout.settleArguments(units, (now - consumedAt) / 1_000, false, SLOTS);
		call(template, generic(), layout.keys("generic"), arguments);
		if (layout.leanAlgorithm() != null) {
			call(template, generic(), layout.keys("lean"), arguments);
		}
	}

	private static void assertAlike(Decision[] actual, Decision[] expected, Tier tier, String context) {
		for (int i = 0; i < expected.length; i++) {
			String limit = context + ", limit " + i;
			assertThat(actual[i].allowed()).as(limit).isEqualTo(expected[i].allowed());
			assertThat(actual[i].remaining()).as(limit).isEqualTo(expected[i].remaining());
			if (tier.limits().get(i) instanceof FixedWindow) {
				assertThat(actual[i]).as(limit).isEqualTo(expected[i]);
			}
			else {
				assertThat(actual[i].resetNanos()).as(limit)
					.isCloseTo(expected[i].resetNanos(), within(rounding(expected[i].resetNanos())));
				assertThat(actual[i].retryAfterNanos()).as(limit)
					.isCloseTo(expected[i].retryAfterNanos(), within(rounding(expected[i].retryAfterNanos())));
			}
		}
	}

	/**
	 * How far a computed instant may differ between the two: Lua rounds up to whole
	 * microseconds with a tolerance of its own, Java to nanoseconds with one relative to
	 * the instant (a ten-millionth of a millionth, some microseconds over a year).
	 */
	private static long rounding(long nanos) {
		return 2_000 + (long) (nanos * 2e-13);
	}

	private static Decision[] decisions(Verdict verdict, Tier tier) {
		Decision[] decisions = new Decision[tier.limits().size()];
		for (int i = 0; i < decisions.length; i++) {
			decisions[i] = verdict.decision(i);
		}
		return decisions;
	}

	/**
	 * The instant after {@code now}, a whole microsecond: up to half an hour, a second or
	 * a few microseconds later, or the same; within a minute of the boundary, now and then
	 * the boundary itself or the microsecond before it.
	 */
	private static long next(long now, long boundary, Random random) {
		if (Math.abs(now - boundary) < Duration.ofMinutes(1).toNanos() && random.nextInt(3) == 0) {
			return Math.max(now, boundary - 1_000L * random.nextInt(2));
		}
		return now + switch (random.nextInt(4)) {
			case 0 -> 1_000L * random.nextInt(1_800_000_000);
			case 1 -> 1_000L * random.nextInt(1_000_000);
			case 2 -> 1_000L * random.nextInt(3);
			default -> 0L;
		};
	}

	@SuppressWarnings("rawtypes")
	private static RedisScript<List> lean(RedisLayout layout) {
		return LEAN.computeIfAbsent(layout.leanLimit(),
				(limit) -> RedisScript.of(fake(ScriptAssembler.lean(limit)), List.class));
	}

	@SuppressWarnings("rawtypes")
	private static RedisScript<List> generic() {
		return GENERIC;
	}

	private static String fake(String source) {
		if (!source.contains(TIME_CALL)) {
			throw new IllegalStateException("The script no longer reads " + TIME_CALL);
		}
		return source.replace(TIME_CALL, FAKE_TIME);
	}

	/**
	 * Redis's time at {@code nanos}, and the gateway's clock that many seconds ahead.
	 */
	private void setTime(long nanos, long gatewayAheadSeconds) {
		this.gatewayNanos.set(nanos + gatewayAheadSeconds * 1_000_000_000L);
		long micros = nanos / 1_000;
		StringRedisTemplate template = redis.blockingTemplate();
		template.opsForValue().set("fake-time:s", Long.toString(micros / 1_000_000));
		template.opsForValue().set("fake-time:us", Long.toString(micros % 1_000_000));
	}

	@SuppressWarnings({ "rawtypes", "unchecked" })
	private static List<Object> call(StringRedisTemplate template, RedisScript<List> script, List<String> keys,
			List<String> arguments) {
		return new ArrayList<>(template.execute(script, keys, arguments.toArray()));
	}

	private static long at(String instant) {
		Instant parsed = Instant.parse(instant);
		return parsed.getEpochSecond() * 1_000_000_000L + parsed.getNano();
	}

	private static long micros(String instant) {
		return at(instant) / 1_000;
	}

	/**
	 * A boundary of calendar periods, and the periods it ends and starts.
	 */
	private record Crossing(String at, CalendarPeriods periods) {
	}

}
