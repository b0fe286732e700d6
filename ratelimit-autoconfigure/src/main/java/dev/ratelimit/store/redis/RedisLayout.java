package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.CalendarPeriods;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;

/**
 * The keys and script arguments of one tier's buckets in Redis, computed once: the key
 * prefix of its buckets and the arguments describing its limits ({@link ScriptProtocol}
 * lays out the calls). A bucket's {@linkplain #BUCKET_SUFFIX bucket key}
 * ({@code rl:{orders:free:10.0.0.1}:b2}) holds every limit's state under its tag: its
 * position and parameters ({@code 1:1:100:6.0E7:0.0}: the first limit, fixed window,
 * 100 per minute), its shaping apart. A sliding window log keeps its instants in a list
 * key of its own, named by its tag ({@code rl:{orders:free:10.0.0.1}:1:2:100:6.0E7:0.0}); a
 * concurrency limit its slots in a hash named by its position and code only
 * ({@code rl:{orders:free:10.0.0.1}:1:6}), so that the requests in flight stay counted
 * when a reload changes its limit, as the local store carries them over. A limit counted
 * in calendar periods names its calendar in place of its period
 * ({@code 1:1:10000:month@Europe/Paris:0.0}), and each call carries the periods around
 * this node's clock ({@link CalendarArguments}).
 * Every key of a bucket carries the same hash tag, {@code {<policy>:<tier>:<client key>}},
 * so that a bucket lives in one Redis Cluster slot and one script can update it
 * atomically.
 * <p>
 * The three parts are {@linkplain #escape(String) escaped}, the client key above all,
 * which a client chooses: none holds a {@code :}, so each key parses back one way
 * only and no client key reaches into another policy's or tier's keys; none holds a
 * brace, so the hash tag is always the whole of the three and no client picks its
 * slot with a {@code }}; none holds a glob character, so no key matches a SCAN
 * pattern it was not meant to.
 */
public final class RedisLayout {

	/**
	 * The characters a key part never holds as they are.
	 */
	private static final String ESCAPED = "%:{}*?[]\\";

	private static final String HEX_DIGITS = "0123456789ABCDEF";

	/**
	 * The end of a bucket key, after its hash tag: {@code b} and the stored layout's
	 * version. Version 1 kept a hash per limit and a meta hash ending {@code }:m}; a new
	 * version gets a new name, so that no version reads another's state.
	 */
	static final String BUCKET_SUFFIX = "}:b2";

	/**
	 * The end of a block key, after its hash tag, the bucket's: {@code p} (penalty) and
	 * the stored layout's version. A bucket key's SCAN pattern never matches it.
	 */
	static final String BLOCK_SUFFIX = "}:p1";

	/**
	 * The policy part of the start-up warm-up's keys: see {@link #warmUp(String, Tier)}.
	 */
	static final String WARM_UP_POLICY = "%warm-up";

	private final Tier tier;

	private final String keyPrefix;

	private final String[] keySuffixes;

	private final List<String> limitArguments;

	private final String idleMillis;

	private final boolean countsInFlight;

	/**
	 * The tier's one limit as its lean script, which judges its acquire calls, is written
	 * for it; none for a tier of several limits.
	 */
	private final @Nullable LeanLimit leanLimit;

	/**
	 * The periods arguments of the tier's limits counted in calendar periods, in the
	 * tier's order.
	 */
	private final List<CalendarArguments> calendars;

	/**
	 * The clock the periods sent to Redis are placed around.
	 */
	private final MonotonicClock clock;

	RedisLayout(String prefix, String policy, Tier tier) {
		this(prefix, policy, tier, MonotonicClock.SYSTEM);
	}

	/**
	 * A layout whose calls place the calendar periods they carry around {@code clock}'s
	 * readings rather than this node's wall clock's.
	 */
	RedisLayout(String prefix, String policy, Tier tier, MonotonicClock clock) {
		this(prefix + ":{" + escape(policy) + ":" + escape(tier.name()) + ":", tier, clock);
	}

	/**
	 * The layout of a tier the start-up warm-up decides on, in keys of its own: its
	 * policy part is {@value #WARM_UP_POLICY}, a {@code %} not followed by two hex digits,
	 * which no escaped policy id is, so that no policy's bucket, read or SCAN pattern ever
	 * meets them.
	 */
	static RedisLayout warmUp(String prefix, Tier tier) {
		return new RedisLayout(prefix + ":{" + WARM_UP_POLICY + ":" + escape(tier.name()) + ":", tier,
				MonotonicClock.SYSTEM);
	}

	private RedisLayout(String keyPrefix, Tier tier, MonotonicClock clock) {
		this.tier = tier;
		this.keyPrefix = keyPrefix;
		this.clock = clock;
		List<Limit> limits = tier.limits();
		List<CalendarArguments> calendars = new ArrayList<>(0);
		this.keySuffixes = new String[limits.size() + 1];
		List<String> arguments = new ArrayList<>(limits.size() * ScriptProtocol.ARGUMENTS_PER_LIMIT);
		for (int i = 0; i < limits.size(); i++) {
			int first = arguments.size();
			addArguments(arguments, limits.get(i));
			// The limit's parameters are part of its tag: after a live reload that changed
			// a limit, the script starts it afresh rather than reading numbers that meant
			// something else (a window index of another length, a count above the new
			// limit); an unchanged limit keeps its tag and its state. Its shaping is not:
			// a queue's level and a bucket's tokens mean the same whether it shapes or
			// meters (as LeakyBucket's and TokenBucket's carryOver keep them), so that
			// turning shaping on or off gives no client a fresh bucket, and a meter's load
			// forgives the tokens a shaping bucket reserved below zero.
			String tag = (i + 1) + ":" + String.join(":", arguments.subList(first, arguments.size()));
			addShaping(arguments, limits.get(i).shaping());
			arguments.add(tag);
			this.keySuffixes[i] = limits.get(i).countsInFlight() ? "}:" + (i + 1) + ":" + arguments.get(first)
					: "}:" + tag;
			CalendarPeriods calendar = limits.get(i).calendar();
			if (calendar != null) {
				calendars.add(new CalendarArguments(calendar));
			}
		}
		this.calendars = List.copyOf(calendars);
		this.keySuffixes[limits.size()] = BUCKET_SUFFIX;
		this.limitArguments = Collections.unmodifiableList(arguments);
		this.idleMillis = Long.toString(Math.max(1, ceilMillis(tier.idleTimeout().toNanos())));
		this.countsInFlight = limits.stream().anyMatch(Limit::countsInFlight);
		// A limit that counts requests in flight needs the node's lease, which only the
		// generic script's arguments carry.
		// The generic script's limit arguments but the code, which the lean script is.
		this.leanLimit = (limits.size() == 1 && !limits.get(0).countsInFlight())
				? new LeanLimit(limits.get(0).algorithm(), this.idleMillis, arguments.get(1),
						calendars.isEmpty() ? arguments.get(2) : null, arguments.get(3), arguments.get(4),
						arguments.get(5), "|" + arguments.get(6) + " ")
				: null;
	}

	public Tier tier() {
		return this.tier;
	}

	/**
	 * Whether a limit of the tier counts requests in flight, whose slots are leases a
	 * node renews.
	 */
	boolean countsInFlight() {
		return this.countsInFlight;
	}

	/**
	 * The algorithm whose lean script judges this tier's acquire calls: that of its one
	 * limit; none for a tier of several limits or of a limit that counts requests in
	 * flight, which the generic script judges.
	 */
	@Nullable Algorithm leanAlgorithm() {
		return (this.leanLimit != null) ? this.leanLimit.algorithm() : null;
	}

	/**
	 * The tier's one limit as its lean script is written for it; none when the tier has
	 * no {@linkplain #leanAlgorithm() lean script}.
	 */
	@Nullable LeanLimit leanLimit() {
		return this.leanLimit;
	}

	/**
	 * The lean script's keys: the bucket key, then, for a sliding window log, its list.
	 */
	List<String> leanKeys(String clientKey) {
		String tagged = this.keyPrefix + escape(clientKey);
		if (leanAlgorithm() == Algorithm.SLIDING_WINDOW_LOG) {
			return List.of(tagged + BUCKET_SUFFIX, tagged + this.keySuffixes[0]);
		}
		return List.of(tagged + BUCKET_SUFFIX);
	}

	/**
	 * The lean script's arguments, laid out as {@link ScriptProtocol#LEAN_ARGUMENTS}
	 * says.
	 */
	List<String> leanArguments(long cost) {
		if (this.calendars.isEmpty()) {
			return List.of(Long.toString(cost));
		}
		List<String> arguments = new ArrayList<>(ScriptProtocol.LEAN_ARGUMENTS + this.calendars.size());
		arguments.add(Long.toString(cost));
		addCalendars(arguments);
		return arguments;
	}

	/**
	 * The lean script's arguments for several requests judged in turn, as if each came
	 * alone, and {@code refusedHere} more requests counted as judged: the costs separated
	 * by spaces, then {@code /} and that count unless it is {@code 0}.
	 */
	List<String> leanArguments(long[] costs, long refusedHere) {
		if (costs.length == 1 && refusedHere == 0) {
			return leanArguments(costs[0]);
		}
		StringBuilder judged = new StringBuilder(costs.length * 2 + 8);
		for (long cost : costs) {
			judged.append(cost).append(' ');
		}
		if (refusedHere > 0) {
			judged.append('/').append(refusedHere);
		}
		List<String> arguments = new ArrayList<>(ScriptProtocol.LEAN_ARGUMENTS + this.calendars.size());
		arguments.add(judged.toString());
		addCalendars(arguments);
		return arguments;
	}

	/**
	 * The periods arguments of the limits counted in calendar periods, around this
	 * node's clock now.
	 */
	private void addCalendars(List<String> arguments) {
		if (!this.calendars.isEmpty()) {
			long now = this.clock.nanoTime();
			for (CalendarArguments calendar : this.calendars) {
				arguments.add(calendar.at(now));
			}
		}
	}

	/**
	 * The bucket's keys: one per limit, in the tier's order, then its bucket key.
	 */
	List<String> keys(String clientKey) {
		String tagged = this.keyPrefix + escape(clientKey);
		String[] keys = new String[this.keySuffixes.length];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = tagged + this.keySuffixes[i];
		}
		return List.of(keys);
	}

	/**
	 * The client key of this tier's bucket key; none when it is another tier's or none
	 * of ours.
	 */
	Optional<String> clientKeyOf(String bucketKey) {
		return clientKeyOf(bucketKey, BUCKET_SUFFIX);
	}

	/**
	 * The key of the client's penalty block, in its bucket's hash tag, so that one script
	 * call on one cluster slot judges both.
	 */
	String blockKey(String clientKey) {
		return this.keyPrefix + escape(clientKey) + BLOCK_SUFFIX;
	}

	/**
	 * The client key of this tier's block key; none when it is another tier's or none of
	 * ours.
	 */
	Optional<String> blockClientKeyOf(String blockKey) {
		return clientKeyOf(blockKey, BLOCK_SUFFIX);
	}

	private Optional<String> clientKeyOf(String key, String suffix) {
		if (!key.startsWith(this.keyPrefix) || !key.endsWith(suffix)
				|| key.length() < this.keyPrefix.length() + suffix.length()) {
			return Optional.empty();
		}
		return unescape(key.substring(this.keyPrefix.length(), key.length() - suffix.length()));
	}

	/**
	 * A key part with every character that structures a key or a glob ({@code %},
	 * {@code :}, braces, {@code *}, {@code ?}, square brackets, backslash) written as
	 * {@code %XX}, its code in hex; any other text, binary or Unicode, is kept as it is.
	 * A part without such characters, an IPv4 address or a typical API key, is returned
	 * as it is, without allocating.
	 */
	static String escape(String part) {
		int first = 0;
		while (first < part.length() && !isEscaped(part.charAt(first))) {
			first++;
		}
		if (first == part.length()) {
			return part;
		}
		StringBuilder escaped = new StringBuilder(part.length() + 8).append(part, 0, first);
		for (int i = first; i < part.length(); i++) {
			char c = part.charAt(i);
			if (isEscaped(c)) {
				escaped.append('%').append(HEX_DIGITS.charAt(c >> 4)).append(HEX_DIGITS.charAt(c & 0xF));
			}
			else {
				escaped.append(c);
			}
		}
		return escaped.toString();
	}

	/**
	 * The part {@link #escape(String)} was given; none when {@code escaped} is not the
	 * output of escape.
	 */
	static Optional<String> unescape(String escaped) {
		if (escaped.indexOf('%') < 0) {
			return containsEscaped(escaped) ? Optional.empty() : Optional.of(escaped);
		}
		StringBuilder part = new StringBuilder(escaped.length());
		for (int i = 0; i < escaped.length(); i++) {
			char c = escaped.charAt(i);
			if (c != '%') {
				if (isEscaped(c)) {
					return Optional.empty();
				}
				part.append(c);
				continue;
			}
			if (i + 2 >= escaped.length()) {
				return Optional.empty();
			}
			int code = Character.digit(escaped.charAt(i + 1), 16) * 16 + Character.digit(escaped.charAt(i + 2), 16);
			if (code < 0 || !isEscaped((char) code) || HEX_DIGITS.indexOf(escaped.charAt(i + 1)) < 0
					|| HEX_DIGITS.indexOf(escaped.charAt(i + 2)) < 0) {
				return Optional.empty();
			}
			part.append((char) code);
			i += 2;
		}
		return Optional.of(part.toString());
	}

	private static boolean containsEscaped(String text) {
		for (int i = 0; i < text.length(); i++) {
			if (isEscaped(text.charAt(i))) {
				return true;
			}
		}
		return false;
	}

	private static boolean isEscaped(char c) {
		return c < 128 && ESCAPED.indexOf(c) >= 0;
	}

	/**
	 * The script's arguments, laid out as {@link ScriptProtocol#FIXED_ARGUMENTS} says,
	 * then the limits'.
	 */
	List<String> arguments(String mode, long cost, long want, long requests, Refund first, Refund second,
			SlotLease slots) {
		return arguments(mode, cost, want, requests, 0, false, slots, first, second);
	}

	/**
	 * The arguments of a {@code settle}: {@code units} charged (above {@code 0}) or given
	 * back as taken {@code heldMicros} ago (below), and the slots given back when the
	 * exchange {@code ended}; no request judged.
	 */
	List<String> settleArguments(long units, long heldMicros, boolean ended, SlotLease slots) {
		return arguments("settle", units, 0, 0, heldMicros, ended, slots, Refund.NONE, Refund.NONE);
	}

	/**
	 * The arguments of a {@code renew} of the node's lease on the {@code held} slots it
	 * counts.
	 */
	List<String> renewArguments(long held, SlotLease slots) {
		return arguments("renew", held, 0, 0, 0, false, slots, Refund.NONE, Refund.NONE);
	}

	private List<String> arguments(String mode, long cost, long want, long requests, long heldMicros, boolean ended,
			SlotLease slots, Refund first, Refund second) {
		List<String> arguments = new ArrayList<>(
				ScriptProtocol.FIXED_ARGUMENTS + this.limitArguments.size() + this.calendars.size());
		arguments.add(mode);
		arguments.add(Long.toString(cost));
		arguments.add(this.idleMillis);
		arguments.add(Long.toString(want));
		arguments.add(Long.toString(requests));
		arguments.add(Long.toString(heldMicros));
		arguments.add(ended ? "1" : "0");
		arguments.add(slots.node());
		arguments.add(slots.leaseMillis());
		for (Refund refund : new Refund[] { first, second }) {
			arguments.add(Long.toString(refund.units()));
			arguments.add(Long.toString(refund.leasedAtMicros()));
		}
		arguments.addAll(this.limitArguments);
		addCalendars(arguments);
		return arguments;
	}

	private static void addArguments(List<String> arguments, Limit limit) {
		// Periods go in microseconds, Redis TIME's unit, as exact decimals so that no
		// configured duration is rounded; calendar periods by their name, the periods
		// themselves following every limit's arguments, as they change with time. The
		// limit's tag follows, added by the caller.
		arguments.add(Integer.toString(ScriptProtocol.code(limit.algorithm())));
		arguments.add(Long.toString(limit.quota()));
		if (limit instanceof TokenBucket bucket) {
			addRate(arguments, bucket.refillPeriod(), bucket.refillRate());
		}
		else if (limit instanceof LeakyBucket bucket) {
			addRate(arguments, bucket.drainPeriod(), bucket.drainRate());
		}
		else if (limit.calendar() != null) {
			arguments.add(CalendarArguments.name(limit.calendar()));
			arguments.add(Double.toString(0));
		}
		else {
			addRate(arguments, limit.window(), 0);
		}
	}

	private static void addRate(List<String> arguments, Duration period, double rate) {
		arguments.add(micros(period));
		arguments.add(Double.toString(rate));
	}

	/**
	 * The longest hold in microseconds and the units that pass at once; {@code 0} and
	 * {@code 0} for a limit that meters.
	 */
	private static void addShaping(List<String> arguments, @Nullable Shaping shaping) {
		arguments.add((shaping != null) ? micros(shaping.maxDelay()) : "0");
		arguments.add((shaping != null) ? Long.toString(shaping.delayAfter()) : "0");
	}

	private static String micros(Duration duration) {
		return Double.toString(duration.toNanos() / 1000.0);
	}

	private static long ceilMillis(long nanos) {
		return (nanos + 999_999) / 1_000_000;
	}

}
