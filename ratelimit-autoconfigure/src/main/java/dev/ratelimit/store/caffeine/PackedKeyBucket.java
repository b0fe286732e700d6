package dev.ratelimit.store.caffeine;

/**
 * A bucket whose key, up to {@value #MAX_LENGTH} characters each in {@code 1..255} (a
 * short IPv6 address, a client id, a short API key), is packed one byte per character
 * into two words beside the state: no {@code String}, no array, 64 bytes in all. Keys
 * that {@link AddressKeyBucket} packs in one word are packed there.
 */
final class PackedKeyBucket extends CaffeineBucket {

	static final int MAX_LENGTH = 16;

	private static final int BYTES_PER_WORD = 8;

	/**
	 * Characters 0 to 7, character {@code i} in bits {@code 8i} to {@code 8i + 7}; a
	 * zero byte ends a shorter key.
	 */
	private final long low;

	/**
	 * Characters 8 to 15, as in {@link #low}.
	 */
	private final long high;

	PackedKeyBucket(BucketGroup group, String key) {
		super(group);
		if (!fits(key)) {
			throw new IllegalArgumentException("key does not fit in two words: " + key);
		}
		this.low = word(key, 0);
		this.high = word(key, BYTES_PER_WORD);
	}

	/**
	 * Whether {@code key} can be packed: no zero character (which ends a key) and none
	 * above one byte.
	 */
	static boolean fits(String key) {
		if (key.length() > MAX_LENGTH) {
			return false;
		}
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c == 0 || c > 0xff) {
				return false;
			}
		}
		return true;
	}

	@Override
	String key() {
		char[] chars = new char[MAX_LENGTH];
		int length = 0;
		while (length < MAX_LENGTH && character(length) != 0) {
			chars[length] = (char) character(length);
			length++;
		}
		return new String(chars, 0, length);
	}

	/**
	 * Whether {@code key} packs to this bucket's two words: read in one pass, the
	 * characters checked as {@link #fits} checks them as they are packed, since a request
	 * compares its key with its bucket's on every lookup.
	 */
	@Override
	boolean hasKey(String key) {
		int length = key.length();
		if (length > MAX_LENGTH) {
			return false;
		}
		long low = 0;
		long high = 0;
		for (int i = 0; i < length; i++) {
			char c = key.charAt(i);
			if (c == 0 || c > 0xff) {
				return false;
			}
			if (i < BYTES_PER_WORD) {
				low |= (long) c << (BYTES_PER_WORD * i);
			}
			else {
				high |= (long) c << (BYTES_PER_WORD * (i - BYTES_PER_WORD));
			}
		}
		return low == this.low && high == this.high;
	}

	@Override
	int keyHash() {
		int hash = 0;
		for (int i = 0; i < MAX_LENGTH && character(i) != 0; i++) {
			hash = 31 * hash + character(i);
		}
		return hash;
	}

	private int character(int index) {
		long word = (index < BYTES_PER_WORD) ? this.low : this.high;
		return (int) (word >>> (BYTES_PER_WORD * (index % BYTES_PER_WORD))) & 0xff;
	}

	/**
	 * Characters {@code from} to {@code from + 7} of {@code key}, packed as in
	 * {@link #low}; a character above one byte spoils the word, which {@link #fits}
	 * rules out.
	 */
	private static long word(String key, int from) {
		long word = 0;
		int to = Math.min(key.length(), from + BYTES_PER_WORD);
		for (int i = from; i < to; i++) {
			word |= (long) (key.charAt(i) & 0xff) << (BYTES_PER_WORD * (i - from));
		}
		return word;
	}

}
