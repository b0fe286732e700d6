package dev.ratelimit.testsupport;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.support.ManualClock;
import dev.ratelimit.web.HeaderStyle;
import dev.ratelimit.web.HeldRequests;
import dev.ratelimit.web.RateLimitListener;
import dev.ratelimit.web.RateLimitMessages;
import dev.ratelimit.web.RateLimitProblemWriter;
import dev.ratelimit.web.RequestJudge;
import dev.ratelimit.web.RequestJudges;
import reactor.core.publisher.Mono;

import org.springframework.http.codec.ServerCodecConfigurer;

/**
 * The {@code RateLimiter} bean's judge of policy {@code payments} on route
 * {@code payments-route}: a shaping leaky bucket of 5 draining one an hour, holding a
 * request up to three hours, over a Caffeine store on a clock that never moves. Of one
 * key's requests the first passes at once and each after it is held an hour longer than
 * the one before; disposing of a held request gives its place back.
 */
public final class ShapingJudge {

	public static final String POLICY = "payments";

	public static final String ROUTE = "payments-route";

	public final RateLimitPolicies policies;

	public final CaffeineBucketStore store = new CaffeineBucketStore(new ManualClock(), 100);

	private final RequestJudge judge;

	/**
	 * @param held this node's places for held requests
	 * @param listeners told of every decision
	 */
	public ShapingJudge(HeldRequests held, List<RateLimitListener> listeners) {
		RateLimitPolicy policy = TestPolicies.policy(POLICY, StoreType.CAFFEINE, TestPolicies.tier("anonymous",
				new LeakyBucket(5, 1, Duration.ofHours(1), new Shaping(Duration.ofHours(3)))));
		this.policies = new RateLimitPolicies(Map.of(POLICY, policy), Map.of());
		RequestJudges judges = new RequestJudges(this.policies, stores(), listeners, HeaderStyle.DRAFT_11,
				"X-API-Key", new RateLimitProblemWriter(ServerCodecConfigurer.create().getWriters(),
						URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded")),
				null, null, new RateLimitMessages(null, null), held);
		this.judge = judges.forKeys(this.policies, policy, ROUTE);
	}

	/**
	 * The store, to decide and to inspect.
	 */
	public BucketStores stores() {
		return new BucketStores(List.of(this.store), List.of(this.store));
	}

	/**
	 * A request of {@code key}: whether it was allowed, once it is let go.
	 */
	public Mono<Boolean> request(String key) {
		return this.judge.judge(key, (allowed, headers) -> allowed);
	}

}
