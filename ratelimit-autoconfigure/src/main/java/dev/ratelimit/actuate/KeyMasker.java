package dev.ratelimit.actuate;

import java.util.HexFormat;

import dev.ratelimit.store.BucketId;

/**
 * Turns a client key (an API key is a secret, an IP is personal data) into what a
 * bucket listing may show: a short prefix, an ellipsis and the first 8 hex digits of
 * the key's SHA-256. The hash is stable, so one client's buckets can be recognised
 * across listings and restarts without showing who it is.
 */
public final class KeyMasker {

	private static final HexFormat HEX = HexFormat.of();

	private static final int HASH_BYTES = 4;

	private final ShowKeys showKeys;

	private final int prefixLength;

	/**
	 * @param showKeys whether keys are shown as they are
	 * @param prefixLength how many leading characters of a key are kept; never more
	 * than half the key, so a short key is never shown whole
	 */
	public KeyMasker(ShowKeys showKeys, int prefixLength) {
		if (prefixLength < 0) {
			throw new IllegalArgumentException("prefixLength must not be negative, was " + prefixLength);
		}
		this.showKeys = showKeys;
		this.prefixLength = prefixLength;
	}

	/**
	 * The key as a listing shows it.
	 */
	public String display(String key) {
		if (this.showKeys == ShowKeys.ALWAYS) {
			return key;
		}
		int shown = Math.min(this.prefixLength, key.length() / 2);
		return key.substring(0, shown) + "…" + HEX.formatHex(BucketId.sha256(key), 0, HASH_BYTES);
	}

}
