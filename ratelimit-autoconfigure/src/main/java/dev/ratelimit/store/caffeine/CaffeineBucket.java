package dev.ratelimit.store.caffeine;

import java.util.List;

import dev.ratelimit.algorithm.Bucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.IdentifiedBucket;
import org.jspecify.annotations.Nullable;

/**
 * A bucket of the Caffeine store: the client's state and its identity in one object,
 * the cache's key and value at once. As an {@link IdentifiedBucket} it equals the
 * {@link BucketId} of the same policy, tier and key, and hashes alike, so that a
 * request's id finds it without building a key; its hash and equality never depend on
 * its mutable state.
 */
abstract sealed class CaffeineBucket extends Bucket implements IdentifiedBucket
		permits AddressKeyBucket, PackedKeyBucket, StringKeyBucket {

	final BucketGroup group;

	CaffeineBucket(BucketGroup group) {
		this.group = group;
	}

	/**
	 * A bucket for {@code key} in {@code group} for a client first seen at
	 * {@code nowNanos}: its key packed beside its words when both fit, in one word when
	 * it can be.
	 */
	static CaffeineBucket create(BucketGroup group, String key, long nowNanos) {
		CaffeineBucket bucket;
		long address = AddressKeyBucket.encode(key);
		if (!group.keepsOnlyWords) {
			bucket = new StringKeyBucket(group, key);
		}
		else if (address != AddressKeyBucket.DOES_NOT_FIT) {
			bucket = new AddressKeyBucket(group, address);
		}
		else if (PackedKeyBucket.fits(key)) {
			bucket = new PackedKeyBucket(group, key);
		}
		else {
			bucket = new StringKeyBucket(group, key);
		}
		bucket.start(nowNanos);
		return bucket;
	}

	@Override
	public final List<Limit> limits() {
		return this.group.limits;
	}

	@Override
	protected final @Nullable Limit onlyLimit() {
		return this.group.onlyLimit;
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
		return new BucketId(this.group.policy, this.group.tierName, key());
	}

	@Override
	public final boolean hasId(String policy, String tier, @Nullable String key) {
		return this.group.policy.equals(policy) && this.group.tierName.equals(tier) && key != null && hasKey(key);
	}

	@Override
	public final boolean equals(Object other) {
		if (this == other) {
			return true;
		}
		if (other instanceof BucketId id) {
			return hasId(id.policy(), id.tier(), id.key());
		}
		return other instanceof CaffeineBucket bucket && hasId(bucket.group.policy, bucket.group.tierName, bucket.key());
	}

	@Override
	public final int hashCode() {
		return BucketId.hash(this.group.policy, this.group.tierName, keyHash());
	}

	@Override
	public String toString() {
		return id().toString();
	}

}
