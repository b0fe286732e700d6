package dev.ratelimit.store;

import org.jspecify.annotations.Nullable;

/**
 * A stored bucket that is its own key in a map: it equals the {@link BucketId} of its
 * policy, tier and key, and hashes as that id does ({@link BucketId#hash}), so that a
 * request's id finds it without building another key. The id asks the bucket, and so
 * knows no store's buckets.
 */
public interface IdentifiedBucket {

	/**
	 * Whether this is the bucket of {@code policy}, {@code tier} and {@code key}.
	 */
	boolean hasId(String policy, String tier, @Nullable String key);

}
