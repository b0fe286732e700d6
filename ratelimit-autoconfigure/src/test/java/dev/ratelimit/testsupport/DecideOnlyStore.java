package dev.ratelimit.testsupport;

import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketDecider;
import dev.ratelimit.store.BucketId;
import reactor.core.publisher.Mono;

/**
 * A store that decides requests and offers nothing to inspect, as an application's
 * own store may: it admits every request against a one-limit tier, and counts them.
 */
public final class DecideOnlyStore implements BucketDecider {

	private final String name;

	private final AtomicInteger acquired = new AtomicInteger();

	public DecideOnlyStore(String name) {
		this.name = name;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public Mono<Verdict> acquire(BucketId id, Tier tier, long cost) {
		this.acquired.incrementAndGet();
		return Mono.just(Verdict.of(new Decision(true, 41, 42, 0, 0)));
	}

	public int acquired() {
		return this.acquired.get();
	}

}
