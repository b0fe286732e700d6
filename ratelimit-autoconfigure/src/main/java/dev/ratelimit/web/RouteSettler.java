package dev.ratelimit.web;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.Settlement;
import dev.ratelimit.support.ThrottledLog;
import dev.ratelimit.web.PolicyJudge.TierOnRoute;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Mono;

/**
 * The one way a route's judge settles, after the fact, a decision one of its policies
 * took before forwarding: a held request that never went on, a request another policy
 * refused, a response's cost, the end of an exchange. One store call per settlement, never retried, so that nothing is charged
 * twice; its failure is logged (at most once per interval, naming the policy and the
 * route) and never reaches the request; the listeners are told what it changed.
 */
final class RouteSettler {

	private static final ThrottledLog failures = new ThrottledLog(LogFactory.getLog(RouteSettler.class));

	private final BucketDecider store;

	private final String policyId;

	private final String routeId;

	RouteSettler(BucketDecider store, String policyId, String routeId) {
		this.store = store;
		this.policyId = policyId;
		this.routeId = routeId;
	}

	/**
	 * Settle, when subscribed: the listeners are told of a slot given back as the call
	 * goes out (a remote store's lease expires should it never arrive), of units charged
	 * or given back once the store has applied them.
	 * @return the bucket's limits after settling, as a peek describes them; empty when
	 * the store has no such bucket any more or failed
	 */
	Mono<Verdict> settle(BucketId bucket, TierOnRoute tier, Settlement settlement) {
		return Mono.defer(() -> {
			if (settlement.ended() && tier.inFlight()) {
				tier.listeners().notifySlotReleased();
			}
			return this.store.settle(bucket, tier.judged().tier(), settlement);
		}).doOnSuccess((verdict) -> tier.listeners().notifySettled(settlement.units())).onErrorResume((error) -> {
			failures.warn(() -> "Rate limit store '" + this.store.name() + "' could not settle " + settlement
					+ " for policy '" + this.policyId + "' on route '" + this.routeId + "'", error);
			return Mono.empty();
		});
	}

	/**
	 * Give back what a request refused by another policy of its route took, as
	 * {@link #settle} would settle it but telling the listeners nothing, which were told
	 * nothing of the decision either.
	 * @return the bucket's limits after giving back; empty when the store has no such
	 * bucket any more or failed
	 */
	Mono<Verdict> giveBack(BucketId bucket, TierOnRoute tier, Settlement settlement) {
		return Mono.defer(() -> this.store.settle(bucket, tier.judged().tier(), settlement))
			.onErrorResume((error) -> {
				failures.warn(() -> "Rate limit store '" + this.store.name() + "' could not give back " + settlement
						+ " for policy '" + this.policyId + "' on route '" + this.routeId + "'", error);
				return Mono.empty();
			});
	}

	/**
	 * {@link #settle} without waiting for it: at the end of an exchange, whose response
	 * is not delayed by the store.
	 */
	void settleLater(BucketId bucket, TierOnRoute tier, Settlement settlement) {
		settle(bucket, tier, settlement).subscribe();
	}

	String policyId() {
		return this.policyId;
	}

	String routeId() {
		return this.routeId;
	}

}
