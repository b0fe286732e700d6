package dev.ratelimit.actuator;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

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
		return key.substring(0, shown) + "…" + HEX.formatHex(sha256(key), 0, HASH_BYTES);
	}

	private static byte[] sha256(String key) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
		}
		catch (NoSuchAlgorithmException ex) {
			// Every Java platform must provide SHA-256.
			throw new IllegalStateException(ex);
		}
	}

}
