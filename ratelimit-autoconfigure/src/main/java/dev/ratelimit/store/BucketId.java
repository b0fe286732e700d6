package dev.ratelimit.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Identifies one client's bucket: a policy, the tier the client was judged under, and
 * the resolved key. A key seen under two tiers (an IP with and without an API key)
 * has one bucket per tier, so switching tiers never resets a quota.
 * <p>
 * An id equals an {@link IdentifiedBucket} of the same policy, tier and key, and hashes
 * alike, so that a store whose buckets are their own keys finds one by the request's id.
 *
 * @param policy the policy id
 * @param tier the tier name
 * @param key the resolved client key, as {@link #storedKey(String)} bounds it
 */
public record BucketId(String policy, String tier, String key) {

	/**
	 * Longest client key kept as it is. Longer keys (a hostile header, a long token) are
	 * kept as their SHA-256 digest, so that a million buckets hold a million short keys
	 * whatever clients send.
	 */
	public static final int MAX_KEY_LENGTH = 64;

	/**
	 * What a digest key starts with; a digest key is longer than
	 * {@link #MAX_KEY_LENGTH}, so no key kept as it is can be mistaken for one.
	 */
	public static final String DIGEST_PREFIX = "sha256:";

	private static final int DIGEST_KEY_LENGTH = DIGEST_PREFIX.length() + 64;

	@Override
	public boolean equals(Object other) {
		if (other instanceof BucketId id) {
			return Objects.equals(this.policy, id.policy) && Objects.equals(this.tier, id.tier)
					&& Objects.equals(this.key, id.key);
		}
		return other instanceof IdentifiedBucket bucket && bucket.hasId(this.policy, this.tier, this.key);
	}

	@Override
	public int hashCode() {
		return hash(this.policy, this.tier, Objects.hashCode(this.key));
	}

	/**
	 * The hash of the id of {@code policy}, {@code tier} and a key whose
	 * {@link String#hashCode()} is {@code keyHash}: what an {@link IdentifiedBucket}
	 * hashes as, from a key it may not keep as a {@code String}.
	 */
	public static int hash(String policy, String tier, int keyHash) {
		return 31 * (31 * Objects.hashCode(policy) + Objects.hashCode(tier)) + keyHash;
	}

	/**
	 * The key a client's key is kept under: itself, or {@code sha256:<hex digest>} of
	 * its UTF-8 bytes when it is longer than {@link #MAX_KEY_LENGTH}. SHA-256 is
	 * collision resistant, so no client can craft a key that lands in another's bucket.
	 */
	public static String storedKey(String key) {
		if (key.length() <= MAX_KEY_LENGTH) {
			return key;
		}
		return DIGEST_PREFIX + HexFormat.of().formatHex(sha256(key));
	}

	/**
	 * The SHA-256 digest of a key's UTF-8 bytes: what a long key is kept as, and what
	 * a masked key is recognised by.
	 */
	public static byte[] sha256(String key) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

	/**
	 * The key an operator names: a digest key as listings show it, or a client's key,
	 * kept as {@link #storedKey(String)} keeps it.
	 */
	public static String lookupKey(String key) {
		return isDigestKey(key) ? key : storedKey(key);
	}

	private static boolean isDigestKey(String key) {
		if (key.length() != DIGEST_KEY_LENGTH || !key.startsWith(DIGEST_PREFIX)) {
			return false;
		}
		for (int i = DIGEST_PREFIX.length(); i < key.length(); i++) {
			char c = key.charAt(i);
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
				return false;
			}
		}
		return true;
	}

}
