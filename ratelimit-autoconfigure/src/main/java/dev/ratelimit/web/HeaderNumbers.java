package dev.ratelimit.web;

/**
 * Whole numbers as header values. The small ones, which most remaining counts and reset
 * seconds are (a quota of up to a thousand requests, a reset within seventeen minutes),
 * are written once and shared, so that writing them allocates nothing per request.
 */
final class HeaderNumbers {

	private static final String[] SMALL = new String[1024];

	static {
		for (int i = 0; i < SMALL.length; i++) {
			SMALL[i] = Integer.toString(i);
		}
	}

	private HeaderNumbers() {
	}

	/**
	 * The decimal digits of a value, as {@link Long#toString(long)} writes them.
	 */
	static String of(long value) {
		return (value >= 0 && value < SMALL.length) ? SMALL[(int) value] : Long.toString(value);
	}

}
