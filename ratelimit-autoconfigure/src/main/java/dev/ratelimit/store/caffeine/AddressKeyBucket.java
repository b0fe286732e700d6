package dev.ratelimit.store.caffeine;

/**
 * A bucket whose key, up to {@value #MAX_LENGTH} characters among the digits, {@code .}
 * and {@code :} (an IPv4 address, the client address every policy falls back to), is
 * packed four bits a character into one word beside the state: no {@code String}, no
 * array, 56 bytes in all.
 */
final class AddressKeyBucket extends CaffeineBucket {

	static final int MAX_LENGTH = 15;

	/**
	 * What {@link #encode} answers for a key that does not fit: no key encodes to it,
	 * as its length (15) is followed by symbols beyond the alphabet.
	 */
	static final long DOES_NOT_FIT = -1;

	private static final String ALPHABET = "0123456789.:";

	private static final int BITS = 4;

	private static final int MASK = (1 << BITS) - 1;

	/**
	 * The key's length in the lowest four bits, then character {@code i} as its index
	 * in the alphabet in the four bits from {@code 4(i + 1)}.
	 */
	private final long key;

	AddressKeyBucket(BucketGroup group, long encodedKey) {
		super(group);
		this.key = encodedKey;
	}

	/**
	 * {@code key} packed in one word, or {@link #DOES_NOT_FIT}.
	 */
	static long encode(String key) {
		int length = key.length();
		if (length > MAX_LENGTH) {
			return DOES_NOT_FIT;
		}
		long word = length;
		for (int i = 0; i < length; i++) {
			int symbol = symbol(key.charAt(i));
			if (symbol < 0) {
				return DOES_NOT_FIT;
			}
			word |= (long) symbol << (BITS * (i + 1));
		}
		return word;
	}

	@Override
	String key() {
		char[] chars = new char[length()];
		for (int i = 0; i < chars.length; i++) {
			chars[i] = character(i);
		}
		return new String(chars);
	}

	@Override
	boolean hasKey(String key) {
		return encode(key) == this.key;
	}

	@Override
	int keyHash() {
		int hash = 0;
		for (int i = 0; i < length(); i++) {
			hash = 31 * hash + character(i);
		}
		return hash;
	}

	private int length() {
		return (int) (this.key & MASK);
	}

	private char character(int index) {
		return ALPHABET.charAt((int) (this.key >>> (BITS * (index + 1))) & MASK);
	}

	private static int symbol(char c) {
		if (c >= '0' && c <= '9') {
			return c - '0';
		}
		return (c == '.') ? 10 : (c == ':') ? 11 : -1;
	}

}
