package dev.ratelimit.web;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.web.PolicyJudge.TierOnRoute;
import org.jspecify.annotations.Nullable;

/**
 * What one policy of a route made of one request, filled in as the route's
 * {@link RequestJudge} goes: the tier, the cost, the bucket, then either a refusal
 * before any decision (no key, a cost the tier could never admit) or the store's
 * verdict. Confined to its request.
 */
final class PolicyJudgement {

	private final PolicyJudge policy;

	private final TierOnRoute tier;

	private long cost;

	private @Nullable BucketId bucket;

	private @Nullable Outcome refusedBeforeDeciding;

	private @Nullable Verdict verdict;

	/**
	 * What the rate limit headers describe: the verdict, until a settlement has the
	 * store describe the bucket anew.
	 */
	private @Nullable Verdict described;

	private long decidedAt;

	private boolean passes;

	PolicyJudgement(PolicyJudge policy, TierOnRoute tier) {
		this.policy = policy;
		this.tier = tier;
	}

	PolicyJudge policy() {
		return this.policy;
	}

	TierOnRoute tier() {
		return this.tier;
	}

	long cost() {
		return this.cost;
	}

	void cost(long cost) {
		this.cost = cost;
	}

	/**
	 * The bucket judged, {@code null} when none is: no key was looked up, or its lookup
	 * failed.
	 */
	@Nullable BucketId bucket() {
		return this.bucket;
	}

	void bucket(BucketId bucket) {
		this.bucket = bucket;
	}

	/**
	 * The policy does not judge the request: it applies to other methods or paths, or
	 * exempts its client. It takes nothing, decides nothing and describes nothing.
	 */
	void pass() {
		this.passes = true;
	}

	boolean passes() {
		return this.passes;
	}

	/**
	 * The request was refused before any store was asked, for this outcome.
	 */
	void refuseBeforeDeciding(Outcome outcome) {
		this.refusedBeforeDeciding = outcome;
	}

	/**
	 * Why the request was refused before any store was asked, or {@code null} when it
	 * was not.
	 */
	@Nullable Outcome refusedBeforeDeciding() {
		return this.refusedBeforeDeciding;
	}

	void decided(Verdict verdict) {
		this.verdict = verdict;
		this.described = verdict;
		this.decidedAt = this.policy.clock().nanoTime();
	}

	/**
	 * The verdict, {@code null} until decided.
	 */
	@Nullable Verdict verdict() {
		return this.verdict;
	}

	@Nullable Verdict described() {
		return this.described;
	}

	/**
	 * The bucket as a settlement left it, for the headers written after it.
	 */
	void describe(Verdict settled) {
		this.described = settled;
	}

	/**
	 * Whether the policy refuses the request: a limit, or the store's failure mode, has
	 * no room for it and the policy enforces.
	 */
	boolean refuses() {
		return this.verdict != null && !this.verdict.allowed() && !this.policy.shadow();
	}

	/**
	 * Whether the policy holds the request before it goes on: a shaping limit admitted
	 * it for later and the policy enforces (a shadow policy only counts the hold).
	 */
	boolean holds() {
		return this.verdict != null && this.verdict.delayNanos() > 0 && !this.policy.shadow();
	}

	/**
	 * Whether the decision took something from the bucket, for a settlement to change:
	 * its limits admitted the request. A rejection a shadow policy lets through took
	 * nothing, and a verdict of no limit (a store failing open) consulted none.
	 */
	boolean took() {
		return this.bucket != null && this.verdict != null && this.verdict.allowed()
				&& this.verdict.limitCount() > 0;
	}

	/**
	 * Whether giving back what the decision took would change the bucket: it took units
	 * (a policy that only checked took none) or a slot in flight.
	 */
	boolean tookAnything() {
		return took() && (this.policy.taken(this.cost) > 0 || this.tier.inFlight());
	}

	/**
	 * Whether the request took a slot of the tier's in-flight limits.
	 */
	boolean tookSlot() {
		return this.tier.inFlight() && took();
	}

	/**
	 * Give back what the decision took, the request never having gone on: its units
	 * (none for a policy that only checked) and its slots, where the decision counted
	 * them, in the store that made it ({@link Settlement#fallback()}).
	 */
	Settlement neverForwarded() {
		return new Settlement(-this.policy.taken(this.cost),
				Math.max(0, this.policy.clock().nanoTime() - this.decidedAt), true, this.verdict.fallback());
	}

}
