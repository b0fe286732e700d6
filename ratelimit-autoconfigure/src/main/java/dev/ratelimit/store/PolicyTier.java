package dev.ratelimit.store;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.algorithm.Bucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.policy.Tier;
import org.jspecify.annotations.Nullable;

/**
 * A tier of a policy as the Caffeine store keeps its buckets: what every bucket of the
 * tier shares, held once rather than per bucket.
 */
final class PolicyTier {

	final String policy;

	final String tierName;

	/**
	 * The tier as the policies in force when it was created have it: a request of
	 * another {@link Tier} instance of the same name comes from policies reloaded since.
	 */
	final Tier tier;

	final List<Limit> limits;

	/**
	 * The tier's limit when it has one only, else {@code null}.
	 */
	final @Nullable Limit onlyLimit;

	/**
	 * How long a bucket may stay idle before it is as good as new, in nanoseconds.
	 */
	final long idleTimeoutNanos;

	/**
	 * Whether a bucket keeps only words, so that its key may be packed beside them.
	 */
	final boolean keepsOnlyWords;

	/**
	 * The part of every bucket's hash that the policy and tier make, as
	 * {@link BucketId#hashCode()} computes it.
	 */
	final int hash;

	/**
	 * The live buckets of the policy, which every tier of the policy counts in.
	 */
	final LongAdder policyBuckets;

	PolicyTier(String policy, Tier tier, LongAdder policyBuckets) {
		this.policy = policy;
		this.tierName = tier.name();
		this.tier = tier;
		this.limits = tier.limits();
		this.onlyLimit = (this.limits.size() == 1) ? this.limits.get(0) : null;
		this.idleTimeoutNanos = saturatedNanos(tier.idleTimeout());
		this.keepsOnlyWords = Bucket.keepsOnlyWords(this.limits);
		this.hash = BucketId.hash(policy, this.tierName);
		this.policyBuckets = policyBuckets;
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

}
