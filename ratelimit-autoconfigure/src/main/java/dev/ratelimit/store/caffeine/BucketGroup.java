package dev.ratelimit.store.caffeine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.algorithm.Bucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.policy.Tier;
import org.jspecify.annotations.Nullable;

/**
 * The Caffeine store's buckets of one tier of one policy: what they all share (their
 * policy and tier, the limits, the idle timeout), held once rather than per bucket, and
 * each bucket refers to it.
 */
final class BucketGroup {

	/**
	 * Caffeine moves an entry's expiry on a read or update only when it moves by more
	 * than a second (its {@code EXPIRE_WRITE_TOLERANCE}), so an entry used again within a
	 * second may expire up to a second before its last use's timeout: kept a second
	 * longer, a bucket never expires while its state still counts.
	 */
	private static final Duration EXPIRY_TOLERANCE = Duration.ofSeconds(1);

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
	 * How long the cache keeps a bucket after its last use: the time it takes to be as
	 * good as new, plus Caffeine's expiry tolerance.
	 */
	final long idleTimeoutNanos;

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
		this.idleTimeoutNanos = saturatedNanos(tier.idleTimeout().plus(EXPIRY_TOLERANCE));
		this.keepsOnlyWords = Bucket.keepsOnlyWords(this.limits);
		this.countsInFlight = this.limits.stream().anyMatch(Limit::countsInFlight);
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
