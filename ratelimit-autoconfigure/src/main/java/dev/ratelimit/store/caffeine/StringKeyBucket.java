package dev.ratelimit.store.caffeine;

import org.jspecify.annotations.Nullable;

/**
 * A bucket keeping its key as a {@code String}: a key too long to pack, or a bucket with
 * an extension (a sliding window log, a tier of several limits).
 */
final class StringKeyBucket extends CaffeineBucket {

	private final String key;

	private @Nullable Object extension;

	StringKeyBucket(BucketGroup group, String key) {
		super(group);
		this.key = key;
	}

	@Override
	String key() {
		return this.key;
	}

	@Override
	boolean hasKey(String key) {
		return this.key.equals(key);
	}

	@Override
	int keyHash() {
		return this.key.hashCode();
	}

	@Override
	protected @Nullable Object extension() {
		return this.extension;
	}

	@Override
	protected void extension(@Nullable Object extension) {
		this.extension = extension;
	}

}
