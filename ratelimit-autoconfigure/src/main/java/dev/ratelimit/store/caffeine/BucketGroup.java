package dev.ratelimit.store.caffeine;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.algorithm.Bucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.policy.Tier;
import org.jspecify.annotations.Nullable;

/**
 * The Caffeine store's buckets of one tier of one policy: what they all share (their
 * policy and tier, the limits), held once rather than per bucket, and each bucket
 * refers to it.
 */
final class BucketGroup {

	final String policy;

	final String tierName;

	/**
	 * The tier as the policies in force when the group was created have it: a request of
	 * another {@link Tier} instance of the same name comes from policies reloaded since.
	 */
	final Tier tier;

	final List<Limit> limits;

	/**
	 * The tier's limit when it has one only, else {@code null}.
	 */
	final @Nullable Limit onlyLimit;

	/**
	 * Whether a bucket keeps only words, so that its key may be packed beside them.
	 */
	final boolean keepsOnlyWords;

	/**
	 * Whether a limit of the tier counts requests in flight: a bucket holding slots is
	 * then kept until they are released, whatever its idle timeout.
	 */
	final boolean countsInFlight;

	/**
	 * The live buckets of the policy, which every group of the policy counts in.
	 */
	final LongAdder policyBuckets;

	BucketGroup(String policy, Tier tier, LongAdder policyBuckets) {
		this.policy = policy;
		this.tierName = tier.name();
		this.tier = tier;
		this.limits = tier.limits();
		this.onlyLimit = (this.limits.size() == 1) ? this.limits.get(0) : null;
		this.keepsOnlyWords = Bucket.keepsOnlyWords(this.limits);
		this.countsInFlight = this.limits.stream().anyMatch(Limit::countsInFlight);
		this.policyBuckets = policyBuckets;
	}

}
