package dev.ratelimit.web;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * The value of a JSON number's text (RFC 8259 section 6), which the scanner has checked
 * against the grammar: a {@link Long} when the value is a whole number within a long's
 * range, however it is written ({@code 12}, {@code 12.0} and {@code 1.2e1} are all
 * {@code 12L}), else the nearest {@link Double}.
 */
final class JsonNumbers {

	/**
	 * Digits any long holds.
	 */
	private static final int LONG_DIGITS = 18;

	private JsonNumbers() {
	}

	/**
	 * @return the value, or {@code null} when it is beyond a double's range
	 */
	static @Nullable Number parse(byte[] text, int length) {
		String number = new String(text, 0, length, StandardCharsets.US_ASCII);
		if (isPlainInteger(number)) {
			return Long.parseLong(number);
		}
		Long whole = wholeValue(number);
		if (whole != null) {
			return whole;
		}
		double value = Double.parseDouble(number);
		return Double.isInfinite(value) ? null : value;
	}

	private static boolean isPlainInteger(String number) {
		int digits = number.startsWith("-") ? number.length() - 1 : number.length();
		return digits <= LONG_DIGITS && number.indexOf('.') < 0 && number.indexOf('e') < 0
				&& number.indexOf('E') < 0;
	}

	private static @Nullable Long wholeValue(String number) {
		BigDecimal value;
		try {
			value = new BigDecimal(number).stripTrailingZeros();
		}
		catch (NumberFormatException exponentBeyondAnInt) {
			return null;
		}
		// Checked before asking for the long, so that 1e999999999 is never expanded.
		if (value.scale() > 0 || value.precision() - value.scale() > LONG_DIGITS + 1) {
			return null;
		}
		try {
			return value.longValueExact();
		}
		catch (ArithmeticException beyondALong) {
			return null;
		}
	}

}
