package dev.ratelimit.store;

import java.util.List;

import dev.ratelimit.algorithm.Bucket;
import dev.ratelimit.algorithm.Limit;
import org.jspecify.annotations.Nullable;

/**
 * A bucket of the Caffeine store: the client's state and its identity in one object,
 * the cache's key and value at once. It equals the {@link BucketId} of the same policy,
 * tier and key, and hashes alike, so that a request's id finds it without building a
 * key; its hash and equality never depend on its mutable state.
 */
abstract sealed class LocalBucket extends Bucket permits AddressKeyBucket, PackedKeyBucket, StringKeyBucket {

	final PolicyTier policyTier;

	LocalBucket(PolicyTier policyTier) {
		this.policyTier = policyTier;
	}

	/**
	 * A bucket for {@code key} in {@code policyTier} for a client first seen at
	 * {@code nowNanos}: its key packed beside its words when both fit, in one word when
	 * it can be.
	 */
	static LocalBucket create(PolicyTier policyTier, String key, long nowNanos) {
		LocalBucket bucket;
		long address = AddressKeyBucket.encode(key);
		if (!policyTier.keepsOnlyWords) {
			bucket = new StringKeyBucket(policyTier, key);
		}
		else if (address != AddressKeyBucket.DOES_NOT_FIT) {
			bucket = new AddressKeyBucket(policyTier, address);
		}
		else if (PackedKeyBucket.fits(key)) {
			bucket = new PackedKeyBucket(policyTier, key);
		}
		else {
			bucket = new StringKeyBucket(policyTier, key);
		}
		bucket.start(nowNanos);
		return bucket;
	}

	@Override
	public final List<Limit> limits() {
		return this.policyTier.limits;
	}

	@Override
	protected final @Nullable Limit onlyLimit() {
		return this.policyTier.onlyLimit;
	}

	/**
	 * The client's key, as {@link BucketId#storedKey(String)} keeps it.
	 */
	abstract String key();

	/**
	 * Whether this bucket's key is {@code key}.
	 */
	abstract boolean hasKey(String key);

	/**
	 * {@link String#hashCode()} of the key.
	 */
	abstract int keyHash();

	BucketId id() {
		return new BucketId(this.policyTier.policy, this.policyTier.tierName, key());
	}

	/**
	 * Whether this is the bucket of {@code policy}, {@code tier} and {@code key}.
	 */
	final boolean is(String policy, String tier, @Nullable String key) {
		return this.policyTier.policy.equals(policy) && this.policyTier.tierName.equals(tier) && key != null
				&& hasKey(key);
	}

	@Override
	public final boolean equals(Object other) {
		if (this == other) {
			return true;
		}
		if (other instanceof BucketId id) {
			return is(id.policy(), id.tier(), id.key());
		}
		return other instanceof LocalBucket bucket && is(bucket.policyTier.policy, bucket.policyTier.tierName, bucket.key());
	}

	@Override
	public final int hashCode() {
		return BucketId.hash(this.policyTier.hash, keyHash());
	}

	@Override
	public String toString() {
		return id().toString();
	}

}
