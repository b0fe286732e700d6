package dev.ratelimit.policy;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.algorithm.CalendarPeriods;
import dev.ratelimit.algorithm.Concurrency;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.PolicySettings.LimitSpec;
import dev.ratelimit.policy.PolicySettings.ShapingSpec;
import org.jspecify.annotations.Nullable;

/**
 * Turns one configured limit into its algorithm's {@link Limit}, checking that it sets
 * the parameters its algorithm takes, and only those, each positive, that the policy's
 * cost fits its quota (a concurrency limit counts requests, whatever their cost), that
 * only a bucket shapes, and that only a window that takes one counts in calendar periods
 * ({@link CalendarPeriodsFactory}), which then replace its window.
 */
final class LimitFactory {

	private static final Duration DEFAULT_PERIOD = Duration.ofSeconds(1);

	private LimitFactory() {
	}

	/**
	 * @param path where the limit is configured
	 * @param cost units one request of the policy consumes
	 * @return the limit, or {@code null} when a problem was added
	 */
	static @Nullable Limit limit(String path, LimitSpec spec, long cost, List<ConfigurationProblem> problems) {
		if (spec.algorithm() == null || spec.algorithm().isBlank()) {
			problems.add(new ConfigurationProblem(path + ".algorithm", ConfigurationProblem.quoted(spec.algorithm()),
					"must be one of " + algorithmNames()));
			return null;
		}
		Algorithm algorithm = algorithm(spec.algorithm());
		if (algorithm == null) {
			problems.add(new ConfigurationProblem(path + ".algorithm", spec.algorithm(),
					"must be one of " + algorithmNames()));
			return null;
		}
		LimitFields fields = LimitFields.of(algorithm);
		int problemsBefore = problems.size();
		Map<String, @Nullable Object> values = values(spec);
		// Calendar periods take the place of the window.
		boolean inCalendar = spec.calendar() != null && CalendarPeriodsFactory.takesCalendar(algorithm);
		for (String required : fields.required()) {
			if (values.get(required) == null && !(inCalendar && required.equals("window"))) {
				problems.add(new ConfigurationProblem(path + "." + required, null,
						"must be set for " + algorithm.configName() + ", which takes " + fields.describe()));
			}
		}
		values.forEach((field, value) -> {
			if (value != null && !fields.accepts(field)) {
				problems.add(new ConfigurationProblem(path + "." + field, display(value),
						"must not be set for " + algorithm.configName() + ", which takes " + fields.describe()));
			}
		});
		values.forEach((field, value) -> {
			if (value != null && fields.accepts(field)) {
				checkPositive(path + "." + field, value, problems);
			}
		});
		Shaping shaping = shaping(path + ".shaping", spec.shaping(), algorithm, fields, spec.capacity(), problems);
		CalendarPeriods calendar = CalendarPeriodsFactory.periods(path, spec, algorithm, problems);
		if (problems.size() > problemsBefore) {
			return null;
		}
		// A concurrency limit takes one slot per request, whatever its cost.
		if (fields != LimitFields.CONCURRENCY) {
			long quota = (fields == LimitFields.WINDOW) ? spec.limit() : spec.capacity();
			if (cost > quota) {
				String policyPath = path.substring(0, path.indexOf(".tiers."));
				problems.add(new ConfigurationProblem(policyPath + ".cost", cost,
						"must not exceed the quota of " + path + " (" + quota + "), or no request could ever pass"));
				return null;
			}
		}
		try {
			return build(algorithm, spec, shaping, calendar);
		}
		catch (IllegalArgumentException ex) {
			problems.add(new ConfigurationProblem(path, algorithm.configName(), ex.getMessage()));
			return null;
		}
	}

	/**
	 * The limit's shaping, {@code null} when it has none or a problem was added.
	 */
	private static @Nullable Shaping shaping(String path, @Nullable ShapingSpec spec, Algorithm algorithm,
			LimitFields fields, @Nullable Long capacity, List<ConfigurationProblem> problems) {
		if (spec == null) {
			return null;
		}
		if (fields == LimitFields.CONCURRENCY) {
			problems.add(new ConfigurationProblem(path, asWritten(spec),
					"must not be set for " + algorithm.configName() + ", which takes " + fields.describe()));
			return null;
		}
		if (algorithm != Algorithm.LEAKY_BUCKET && algorithm != Algorithm.TOKEN_BUCKET) {
			problems.add(new ConfigurationProblem(path, asWritten(spec), "must not be set for "
					+ algorithm.configName() + ": a window admits its whole limit again at each boundary, so "
					+ "the requests held for it would all be released at once; shape with leaky-bucket or "
					+ "token-bucket"));
			return null;
		}
		int problemsBefore = problems.size();
		if (spec.maxDelay() == null) {
			problems.add(new ConfigurationProblem(path + ".max-delay", null,
					"must be set to shape: the longest a request may be held (for example 2s)"));
		}
		else {
			ConfigurationChecks.positive(path + ".max-delay", spec.maxDelay(), problems);
		}
		Long delayAfter = spec.delayAfter();
		if (delayAfter != null && algorithm == Algorithm.TOKEN_BUCKET) {
			problems.add(new ConfigurationProblem(path + ".delay-after", delayAfter, "must not be set for "
					+ "token-bucket, whose capacity is the burst that passes at once"));
		}
		else if (delayAfter != null && delayAfter > 0 && capacity != null && delayAfter >= capacity) {
			problems.add(new ConfigurationProblem(path + ".delay-after", delayAfter,
					"must be less than capacity (" + capacity + "), or no request would ever be held"));
		}
		else if (delayAfter != null) {
			ConfigurationChecks.positive(path + ".delay-after", delayAfter, problems);
		}
		if (problems.size() > problemsBefore) {
			return null;
		}
		return new Shaping(spec.maxDelay(), (delayAfter != null) ? delayAfter : 1);
	}

	/**
	 * The shaping's keys as configured, such as {@code {max-delay=1s}}.
	 */
	private static Map<String, Object> asWritten(ShapingSpec spec) {
		Map<String, Object> written = new LinkedHashMap<>();
		if (spec.maxDelay() != null) {
			written.put("max-delay", display(spec.maxDelay()));
		}
		if (spec.delayAfter() != null) {
			written.put("delay-after", spec.delayAfter());
		}
		return written;
	}

	private static Limit build(Algorithm algorithm, LimitSpec spec, @Nullable Shaping shaping,
			@Nullable CalendarPeriods calendar) {
		switch (algorithm) {
			case FIXED_WINDOW:
				return (calendar != null) ? FixedWindow.inCalendar(spec.limit(), calendar)
						: new FixedWindow(spec.limit(), spec.window());
			case SLIDING_WINDOW_LOG:
				return new SlidingWindowLog(spec.limit(), spec.window());
			case SLIDING_WINDOW_COUNTER:
				return (calendar != null) ? SlidingWindowCounter.inCalendar(spec.limit(), calendar)
						: new SlidingWindowCounter(spec.limit(), spec.window());
			case TOKEN_BUCKET:
				return new TokenBucket(spec.capacity(), spec.refillRate(), orDefault(spec.refillPeriod()), shaping);
			case LEAKY_BUCKET:
				return new LeakyBucket(spec.capacity(), spec.drainRate(), orDefault(spec.drainPeriod()), shaping);
			case CONCURRENCY:
				return new Concurrency(spec.limit());
			default:
				throw new IllegalStateException("unhandled algorithm " + algorithm);
		}
	}

	private static Duration orDefault(@Nullable Duration period) {
		return (period != null) ? period : DEFAULT_PERIOD;
	}

	private static void checkPositive(String path, Object value, List<ConfigurationProblem> problems) {
		if (value instanceof Long number) {
			ConfigurationChecks.positive(path, number, problems);
		}
		else if (value instanceof Double number && !(number > 0 && Double.isFinite(number))) {
			problems.add(new ConfigurationProblem(path, display(number), ConfigurationChecks.POSITIVE));
		}
		else if (value instanceof Duration duration) {
			ConfigurationChecks.positive(path, duration, problems);
		}
	}

	private static Map<String, @Nullable Object> values(LimitSpec spec) {
		Map<String, @Nullable Object> values = new LinkedHashMap<>();
		values.put("limit", spec.limit());
		values.put("window", spec.window());
		values.put("capacity", spec.capacity());
		values.put("refill-rate", spec.refillRate());
		values.put("refill-period", spec.refillPeriod());
		values.put("drain-rate", spec.drainRate());
		values.put("drain-period", spec.drainPeriod());
		return values;
	}

	private static @Nullable Algorithm algorithm(String name) {
		for (Algorithm algorithm : Algorithm.values()) {
			if (algorithm.configName().equals(name.trim())) {
				return algorithm;
			}
		}
		return null;
	}

	private static List<String> algorithmNames() {
		List<String> names = new ArrayList<>();
		for (Algorithm algorithm : Algorithm.values()) {
			names.add(algorithm.configName());
		}
		return names;
	}

	private static String display(Object value) {
		if (value instanceof Double number) {
			if (number.isNaN() || number.isInfinite()) {
				return number.toString();
			}
			return BigDecimal.valueOf(number).stripTrailingZeros().toPlainString();
		}
		if (value instanceof Duration duration) {
			return DurationFormat.asConfigured(duration);
		}
		return String.valueOf(value);
	}


	/**
	 * The parameters each family of algorithms takes.
	 */
	private enum LimitFields {

		WINDOW(List.of("limit", "window"), List.of()),

		TOKEN_BUCKET(List.of("capacity", "refill-rate"), List.of("refill-period")),

		LEAKY_BUCKET(List.of("capacity", "drain-rate"), List.of("drain-period")),

		CONCURRENCY(List.of("limit"), List.of());

		private final List<String> required;

		private final List<String> optional;

		LimitFields(List<String> required, List<String> optional) {
			this.required = required;
			this.optional = optional;
		}

		static LimitFields of(Algorithm algorithm) {
			switch (algorithm) {
				case TOKEN_BUCKET:
					return TOKEN_BUCKET;
				case LEAKY_BUCKET:
					return LEAKY_BUCKET;
				case CONCURRENCY:
					return CONCURRENCY;
				default:
					return WINDOW;
			}
		}

		List<String> required() {
			return this.required;
		}

		boolean accepts(String field) {
			return this.required.contains(field) || this.optional.contains(field);
		}

		String describe() {
			String required = String.join(" and ", this.required);
			return this.optional.isEmpty() ? required
					: String.join(", ", this.required) + " and optionally " + String.join(", ", this.optional);
		}

	}

}
