package dev.ratelimit.web;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

import dev.ratelimit.algorithm.CalendarPeriods;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.DurationFormat;

import org.springframework.context.MessageSource;
import org.springframework.context.NoSuchMessageException;
import org.springframework.context.support.ResourceBundleMessageSource;

/**
 * The sentences of 429 problem bodies, looked up once per limit when a route is built:
 * in the application's {@link MessageSource} first, so that it can localize or reword
 * them, then in the defaults this starter ships
 * ({@code dev/ratelimit/web/ratelimit-messages.properties}). Each code is looked up
 * on its own, so an application may override some and keep the rest.
 */
public final class RateLimitMessages {

	/**
	 * The English sentences this starter ships, with no application messages.
	 */
	public static final RateLimitMessages DEFAULTS = new RateLimitMessages(null, null);

	static final String WINDOW = "ratelimit.detail.window";

	static final String TOKEN_BUCKET = "ratelimit.detail.token-bucket";

	static final String LEAKY_BUCKET = "ratelimit.detail.leaky-bucket";

	static final String REQUESTS = "ratelimit.detail.requests";

	static final String PERIOD = "ratelimit.detail.period.";

	static final String CALENDAR = "ratelimit.detail.calendar.";

	static final String BLOCKED = "ratelimit.detail.blocked";

	static final String BLOCK_STARTED = "ratelimit.detail.block-started";

	private static final ResourceBundleMessageSource bundled = bundled();

	private final MessageSource application;

	private final Locale locale;

	/**
	 * @param application the application's messages, or {@code null} for none
	 * @param locale the locale to look sentences up in, or {@code null} for the
	 * messages' base file ({@code messages.properties})
	 */
	public RateLimitMessages(MessageSource application, Locale locale) {
		this.application = application;
		this.locale = (locale != null) ? locale : Locale.ROOT;
	}

	private static ResourceBundleMessageSource bundled() {
		ResourceBundleMessageSource messages = new ResourceBundleMessageSource();
		messages.setBasename("dev/ratelimit/web/ratelimit-messages");
		messages.setDefaultEncoding(StandardCharsets.UTF_8.name());
		messages.setFallbackToSystemLocale(false);
		return messages;
	}

	/**
	 * The sentence telling a client it exceeded a limit, naming the limit's rate.
	 */
	String detail(Limit limit) {
		if (limit instanceof TokenBucket bucket) {
			return message(TOKEN_BUCKET, requests(bucket.refillRate()), period(bucket.refillPeriod()),
					Long.toString(bucket.capacity()));
		}
		if (limit instanceof LeakyBucket bucket) {
			return message(LEAKY_BUCKET, requests(bucket.drainRate()), period(bucket.drainPeriod()),
					Long.toString(bucket.capacity()));
		}
		CalendarPeriods calendar = limit.calendar();
		if (calendar != null) {
			return message(WINDOW, requests(limit.quota()), message(CALENDAR + calendar.unit().configName()));
		}
		return message(WINDOW, requests(limit.quota()), period(limit.window()));
	}

	/**
	 * The sentence telling a client it is blocked until {@code until}.
	 */
	String blocked(String until) {
		return message(BLOCKED, until);
	}

	/**
	 * The sentence, after the limit's, telling a client its breach blocks it until
	 * {@code until}.
	 */
	String blockStarted(String until) {
		return message(BLOCK_STARTED, until);
	}

	String requests(double amount) {
		return message(REQUESTS, amount, BigDecimal.valueOf(amount).stripTrailingZeros().toPlainString());
	}

	/**
	 * A duration after "per", in the largest unit that divides it.
	 */
	String period(Duration duration) {
		DurationFormat.Amount period = DurationFormat.inLargestWholeUnit(duration);
		return period(period.amount(), period.unit().pluralName());
	}

	private String period(long amount, String unit) {
		return message(PERIOD + unit, amount, Long.toString(amount));
	}

	private String message(String code, Object... args) {
		if (this.application != null) {
			try {
				String message = this.application.getMessage(code, args, this.locale);
				// A MessageSource that uses the code as its default message has none.
				if (!code.equals(message)) {
					return message;
				}
			}
			catch (NoSuchMessageException ex) {
				// The application keeps this starter's sentence.
			}
		}
		return bundled.getMessage(code, args, this.locale);
	}

}
