package dev.ratelimit.policy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.support.ManualClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a reload puts in force, records and tells the followers, whatever triggered it.
 */
class PolicyReloaderTests {

	private final RateLimitPolicies initial = policies(10);

	private final LivePolicies live = new LivePolicies(this.initial);

	private final PolicyReloads reloads = new PolicyReloads(new ManualClock());

	private final List<RateLimitPolicies> followed = new ArrayList<>();

	private final PolicyReloader reloader = new PolicyReloader(this.live, this.reloads, this.followed::add);

	@Test
	void validPoliciesAreInForceRecordedAndFollowed() {
		RateLimitPolicies next = policies(20);
		this.reloader.reload(Set.of("ratelimit.policies.p.tiers.anonymous[0].limit"), (inForce) -> {
			assertThat(inForce).isSameAs(this.initial);
			return next;
		});
		assertThat(this.live.get()).isEqualTo(next);
		assertThat(this.followed).containsExactly(this.live.get());
		assertThat(this.reloads.last().outcome()).isEqualTo(PolicyReloads.Outcome.ACCEPTED);
		assertThat(this.reloads.last().changedKeys()).containsExactly("ratelimit.policies.p.tiers.anonymous[0].limit");
	}

	@Test
	void invalidPoliciesAreRecordedWithTheirProblemsAndThePoliciesInForceStay() {
		ConfigurationProblem problem = new ConfigurationProblem("ratelimit.policies.p.tiers.anonymous[0].limit", 0L,
				ConfigurationChecks.POSITIVE);
		this.reloader.reload(Set.of(problem.property()), (inForce) -> {
			throw new InvalidRateLimitConfigurationException(List.of(problem));
		});
		assertThat(this.live.get()).isSameAs(this.initial);
		assertThat(this.followed).isEmpty();
		assertThat(this.reloads.last().outcome()).isEqualTo(PolicyReloads.Outcome.REJECTED);
		assertThat(this.reloads.last().problems()).containsExactly(problem);
		assertThat(this.reloads.count(PolicyReloads.Outcome.REJECTED)).isOne();
	}

	private static RateLimitPolicies policies(long limit) {
		Tier tier = new Tier("anonymous", List.of(new FixedWindow(limit, Duration.ofSeconds(1))), List.of("l"));
		RateLimitPolicy policy = new RateLimitPolicy("p", new KeySource.ClientIp(), false, 1, StoreType.CAFFEINE,
				Map.of("anonymous", tier), tier);
		return new RateLimitPolicies(Map.of("p", policy), Map.of());
	}

}
