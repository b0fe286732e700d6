package dev.ratelimit.web;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.List;

import dev.ratelimit.algorithm.Block;
import dev.ratelimit.algorithm.Nanos;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.ConfigurationProblem;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.web.RateLimitRejection.Reason;

/**
 * The request path's part of a policy's penalty box ({@code penalty}): the store that
 * decides its requests under it, and what a refusal says when a block had a part in
 * it. The block itself is the store's, looked up and started in the decision, so that a
 * remote store does it in the decision's one call; a request refused while blocked is
 * answered as the verdict says, with {@code Retry-After} the time left and no rate limit
 * headers (its limits were not consulted, and the headers describe limits), and the
 * request whose breach started a block gets its limits' headers and a
 * {@code Retry-After} that waits for the block as well.
 * <p>
 * A shadow policy never blocks: it lets its rejections through, so a block would
 * refuse nothing, and it keeps no record of the blocks it would have started.
 */
final class PenaltyVerdicts {

	/**
	 * Where the block's end goes in a sentence resolved once: a private-use character,
	 * which no message holds.
	 */
	private static final String UNTIL = "\uE000";

	private final String blocked;

	private final String blockStarted;

	/**
	 * @param messages where the sentences come from, resolved once here
	 */
	PenaltyVerdicts(RateLimitMessages messages) {
		this.blocked = messages.blocked(UNTIL);
		this.blockStarted = messages.blockStarted(UNTIL);
	}

	/**
	 * The store that decides the requests of {@code policy}: {@code store} under the
	 * policy's penalty box, unless it has none or is in shadow mode.
	 * @throws InvalidRateLimitConfigurationException when the policy has a penalty box
	 * and its store keeps no blocks (a store of the application's own, for one; the
	 * policies' own checks refuse the hybrid store at start-up)
	 */
	static BucketDecider decider(BucketDecider store, RateLimitPolicy policy) {
		Penalty penalty = policy.penalty();
		if (penalty == null || policy.shadow()) {
			return store;
		}
		BucketDecider penalized = store.penalized(penalty);
		if (penalized == null) {
			throw new InvalidRateLimitConfigurationException(List.of(new ConfigurationProblem(
					"ratelimit.policies." + policy.id() + ".penalty", "store " + store.name(),
					"must not be set for a policy on store " + store.name() + ", which keeps no penalty blocks "
							+ "(its BucketDecider's penalized answers null)")));
		}
		return penalized;
	}

	/**
	 * Why a request with this verdict is refused.
	 */
	Reason reason(Verdict verdict) {
		if (verdict.blocked()) {
			return Reason.BLOCKED;
		}
		return verdict.fallback() ? Reason.STORE_FAILED : Reason.LIMIT_EXCEEDED;
	}

	/**
	 * The sentence of a refusal's problem body: the limit's, followed by the block its
	 * breach started; or that the client is blocked, and until when.
	 */
	String detail(JudgedTier tier, Verdict verdict) {
		Block block = verdict.block();
		if (block == null) {
			return tier.detail(verdict);
		}
		String until = until(block);
		if (verdict.blocked()) {
			return this.blocked.replace(UNTIL, until);
		}
		return tier.detail(verdict) + " " + this.blockStarted.replace(UNTIL, until);
	}

	/**
	 * The block's end as an ISO-8601 instant in UTC, in whole seconds rounded up, so that
	 * a client waiting until then is never early.
	 */
	private static String until(Block block) {
		return DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochSecond(Nanos.ceilSeconds(block.untilNanos())));
	}

}
