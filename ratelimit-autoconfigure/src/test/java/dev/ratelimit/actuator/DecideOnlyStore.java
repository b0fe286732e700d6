package dev.ratelimit.actuator;

import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import reactor.core.publisher.Mono;

/**
 * A store that decides requests and offers nothing to inspect, as an application's
 * own store may: it admits everything.
 */
public final class DecideOnlyStore implements BucketDecider {

	private final String name;

	public DecideOnlyStore(String name) {
		this.name = name;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		return Mono.just(Verdict.withoutLimits(true, 0));
	}

}
