package dev.ratelimit.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import reactor.core.publisher.Mono;

/**
 * A store answering whatever the test scripted: it only decides, as a store of the
 * application's own may, and the request path needs nothing more.
 */
public final class ScriptedStore implements BucketDecider {

	public final List<BucketId> ids = new ArrayList<>();

	public final List<Tier> tiers = new ArrayList<>();

	public final List<Long> costs = new ArrayList<>();

	private Supplier<Mono<Verdict>> answer;

	private Supplier<Verdict> answerNow = () -> null;

	public void answer(Supplier<Mono<Verdict>> answer) {
		this.answer = answer;
	}

	/**
	 * Decide at once, as a store in this node's memory does, and fail the test if
	 * asked for a {@code Mono}.
	 */
	public void answerNow(Supplier<Verdict> answerNow) {
		this.answerNow = answerNow;
		this.answer = () -> {
			throw new AssertionError("asked for a Mono although it decides at once");
		};
	}

	@Override
	public String name() {
		return "caffeine";
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		this.ids.add(id);
		this.tiers.add(tier);
		this.costs.add(cost);
		return this.answer.get();
	}

	@Override
	public Verdict acquireNow(BucketId id, Tier tier, long cost) {
		Verdict verdict = this.answerNow.get();
		if (verdict != null) {
			this.ids.add(id);
			this.tiers.add(tier);
			this.costs.add(cost);
		}
		return verdict;
	}

}
