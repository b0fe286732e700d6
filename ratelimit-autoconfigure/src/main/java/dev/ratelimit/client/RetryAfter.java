package dev.ratelimit.client;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.List;
import java.util.Locale;

import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;

/**
 * A {@code Retry-After} field: {@code HTTP-date / delay-seconds} (RFC 9110 section
 * 10.2.3), the delay a number of seconds after the response was received, or the
 * instant at which the client may send its next request.
 *
 * @param delay the delay-seconds, or {@code null} for an HTTP-date
 * @param date the HTTP-date, or {@code null} for delay-seconds
 * @param responseDate the response's {@code Date} field (RFC 9110 section 6.6.1), when it
 * had a valid one: the server's clock, against which its HTTP-date is read
 */
public record RetryAfter(@Nullable Duration delay, @Nullable Instant date, @Nullable Instant responseDate) {

	/**
	 * The largest number of seconds read from a field: a Structured Fields Integer's 15
	 * digits (RFC 9651 section 3.3.1), about 31 million years; longer values are taken
	 * as this, so that an instant computed from one never overflows.
	 */
	static final long MAX_SECONDS = 999_999_999_999_999L;

	/**
	 * IMF-fixdate, the preferred format (RFC 9110 section 5.6.7).
	 */
	private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter.RFC_1123_DATE_TIME;

	/**
	 * The obsolete asctime format, which recipients must accept (RFC 9110 section 5.6.7):
	 * {@code Sun Nov  6 08:49:37 1994}, the day padded with a space.
	 */
	private static final DateTimeFormatter ASCTIME = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy",
			Locale.US).withZone(ZoneOffset.UTC);

	/**
	 * How long to wait from {@code now}: the delay, or the time from the server's
	 * {@code Date} (else from {@code now}) to the HTTP-date, so that a client whose clock
	 * is off waits as long as the server meant; never negative.
	 */
	public Duration delayFrom(Instant now) {
		if (this.delay != null) {
			return this.delay;
		}
		Instant from = (this.responseDate != null) ? this.responseDate : now;
		Duration wait = Duration.between(from, this.date);
		return wait.isNegative() ? Duration.ZERO : wait;
	}

	/**
	 * @param fieldLines the {@code Retry-After} field's lines; {@code null} or empty
	 * when absent
	 * @param dateLines the {@code Date} field's lines
	 * @return the field, or {@code null} when it is absent or malformed
	 */
	static @Nullable RetryAfter parse(@Nullable List<String> fieldLines, @Nullable List<String> dateLines) {
		if (fieldLines == null || fieldLines.size() != 1) {
			return null;
		}
		// OWS around a field value is not part of it (RFC 9110 section 5.5)
		String value = fieldLines.get(0).strip();
		if (value.isEmpty()) {
			return null;
		}
		if (allDigits(value)) {
			return new RetryAfter(Duration.ofSeconds(seconds(value)), null, null);
		}
		Instant date = httpDate(value);
		if (date == null) {
			return null;
		}
		Instant responseDate = (dateLines != null && dateLines.size() == 1) ? httpDate(dateLines.get(0).strip())
				: null;
		return new RetryAfter(null, date, responseDate);
	}

	/**
	 * delay-seconds is {@code 1*DIGIT} (RFC 9110 section 10.2.3): no sign, no fraction.
	 */
	private static boolean allDigits(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c < '0' || c > '9') {
				return false;
			}
		}
		return true;
	}

	private static long seconds(String digits) {
		String significant = digits.replaceFirst("^0+(?=.)", "");
		return (significant.length() > 15) ? MAX_SECONDS : Math.min(Long.parseLong(significant), MAX_SECONDS);
	}

	/**
	 * An HTTP-date in any of its three formats (RFC 9110 section 5.6.7), or {@code null}.
	 */
	static @Nullable Instant httpDate(String value) {
		for (DateTimeFormatter format : new DateTimeFormatter[] { IMF_FIXDATE, rfc850(), ASCTIME }) {
			try {
				return ZonedDateTime.parse(value, format).toInstant();
			}
			catch (DateTimeException ex) {
				// not this format
			}
		}
		return null;
	}

	/**
	 * The obsolete RFC 850 format, {@code Sunday, 06-Nov-94 08:49:37 GMT}: a two-digit
	 * year more than 50 years in the future is the most recent past year with those
	 * digits (RFC 9110 section 5.6.7).
	 */
	private static DateTimeFormatter rfc850() {
		// The limiter's one reading of the wall clock is the system clock's anchor.
		int thisYear = Instant.EPOCH.plusNanos(MonotonicClock.SYSTEM.nanoTime()).atZone(ZoneOffset.UTC).getYear();
		return new DateTimeFormatterBuilder().appendPattern("EEEE, dd-MMM-")
			.appendValueReduced(ChronoField.YEAR, 2, 2, thisYear - 49)
			.appendPattern(" HH:mm:ss 'GMT'")
			.toFormatter(Locale.US)
			.withZone(ZoneOffset.UTC);
	}

}
