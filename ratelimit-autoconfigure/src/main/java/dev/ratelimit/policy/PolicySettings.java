package dev.ratelimit.policy;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The settings the policies are built from, as configured and not yet checked: what
 * {@link RateLimitPolicyFactory} validates. Maps keep the order they were configured
 * in, so that problems are reported in that order.
 *
 * @param apiKeyHeader the header a request's API key is read from
 * @param store where a policy's buckets live unless it says otherwise
 * @param defaultTier the tier of requests without a known API key
 * @param tiersByApiKey the tier of each known API key
 * @param tierHeader the trusted header that names a request's tier, if any
 * @param tierClaim the token claim that names a request's tier, if any
 * @param policies the policies by id
 * @param trustedProxies the proxies whose forwarding header names the client, as
 * addresses or CIDR blocks
 * @param forwardedHeader the forwarding header the trusted proxies write
 */
public record PolicySettings(@Nullable String apiKeyHeader, @Nullable StoreType store, @Nullable String defaultTier,
		Map<String, @Nullable String> tiersByApiKey, @Nullable String tierHeader, @Nullable String tierClaim,
		Map<String, PolicySpec> policies, List<String> trustedProxies, @Nullable ForwardedHeader forwardedHeader) {

	/**
	 * One policy as configured.
	 *
	 * @param key whose quota a request counts against, as written: one key
	 * ({@code [api-key]}, {@code [header:X-Tenant]}, ...) or the parts of a composite
	 * one ({@code [ip, header:X-Tenant]})
	 * @param shadow whether decisions are never enforced
	 * @param cost units one request consumes
	 * @param costHeader the request header that says what a request costs, if any
	 * @param store where the policy's buckets live, if not the default store
	 * @param tiers the limits of each tier, in order
	 * @param onMissingKey what a request gets when its key yields nothing
	 * @param missingKeyStatus the status of a request rejected for having no key, if set
	 * @param afterResponse what the policy settles once the response is known
	 * @param scope which requests the policy applies to and which clients it exempts
	 * @param penalty how a breach blocks the client, if set
	 */
	public record PolicySpec(@Nullable List<String> key, boolean shadow, long cost, @Nullable String costHeader,
			@Nullable StoreType store, Map<String, @Nullable List<LimitSpec>> tiers,
			@Nullable OnMissingKey onMissingKey, @Nullable Integer missingKeyStatus,
			AfterResponseSpec afterResponse, ScopeSpec scope, @Nullable PenaltySpec penalty) {

		/**
		 * A policy whose breaches block no client.
		 */
		public PolicySpec(@Nullable List<String> key, boolean shadow, long cost, @Nullable String costHeader,
				@Nullable StoreType store, Map<String, @Nullable List<LimitSpec>> tiers,
				@Nullable OnMissingKey onMissingKey, @Nullable Integer missingKeyStatus,
				AfterResponseSpec afterResponse, ScopeSpec scope) {
			this(key, shadow, cost, costHeader, store, tiers, onMissingKey, missingKeyStatus, afterResponse, scope,
					null);
		}

		/**
		 * A policy of one key that applies to every request and blocks no client.
		 */
		public PolicySpec(@Nullable String key, boolean shadow, long cost, @Nullable String costHeader,
				@Nullable StoreType store, Map<String, @Nullable List<LimitSpec>> tiers,
				@Nullable OnMissingKey onMissingKey, @Nullable Integer missingKeyStatus,
				AfterResponseSpec afterResponse) {
			this(key, shadow, cost, costHeader, store, tiers, onMissingKey, missingKeyStatus, afterResponse, null);
		}

		/**
		 * A policy of one key that applies to every request.
		 */
		public PolicySpec(@Nullable String key, boolean shadow, long cost, @Nullable String costHeader,
				@Nullable StoreType store, Map<String, @Nullable List<LimitSpec>> tiers,
				@Nullable OnMissingKey onMissingKey, @Nullable Integer missingKeyStatus,
				AfterResponseSpec afterResponse, @Nullable PenaltySpec penalty) {
			this((key != null) ? List.of(key) : null, shadow, cost, costHeader, store, tiers, onMissingKey,
					missingKeyStatus, afterResponse, ScopeSpec.EVERY_REQUEST, penalty);
		}

	}

	/**
	 * A policy's penalty box as configured.
	 *
	 * @param blockFor how long each step of escalation blocks a client, in order
	 * @param forgiveAfter how long after its block a client without a breach is
	 * forgiven, if set
	 */
	public record PenaltySpec(List<@Nullable Duration> blockFor, @Nullable Duration forgiveAfter) {
	}

	/**
	 * What a policy settles once the response is known, as configured.
	 *
	 * @param countResponses the statuses and classes whose requests take their cost
	 * ({@code 401}, {@code 4xx}), if set
	 * @param costFromResponse where the response says what its request cost
	 * ({@code header:NAME}, {@code json:/pointer} or {@code resolver}), if set
	 * @param hideCostHeader whether that response header is kept from the client
	 */
	public record AfterResponseSpec(@Nullable List<String> countResponses, @Nullable String costFromResponse,
			boolean hideCostHeader) {

		/**
		 * Nothing set: the cost is taken on admission.
		 */
		public static final AfterResponseSpec NONE = new AfterResponseSpec(null, null, false);

	}

	/**
	 * One limit as configured: the algorithm and the parameters it takes, the others
	 * unset, how it shapes, if it does, and the calendar periods it counts in, if it does.
	 *
	 * @param calendar the calendar period counted in ({@code day}, {@code week},
	 * {@code month}, {@code year}) in place of a window, as written, if set
	 * @param zone the time zone of the calendar, as written, if set
	 */
	public record LimitSpec(@Nullable String name, @Nullable String algorithm, @Nullable Long limit,
			@Nullable Duration window, @Nullable Long capacity, @Nullable Double refillRate,
			@Nullable Duration refillPeriod, @Nullable Double drainRate, @Nullable Duration drainPeriod,
			@Nullable ShapingSpec shaping, @Nullable String calendar, @Nullable String zone) {

		/**
		 * A limit that counts in no calendar periods.
		 */
		public LimitSpec(@Nullable String name, @Nullable String algorithm, @Nullable Long limit,
				@Nullable Duration window, @Nullable Long capacity, @Nullable Double refillRate,
				@Nullable Duration refillPeriod, @Nullable Double drainRate, @Nullable Duration drainPeriod,
				@Nullable ShapingSpec shaping) {
			this(name, algorithm, limit, window, capacity, refillRate, refillPeriod, drainRate, drainPeriod, shaping,
					null, null);
		}

	}

	/**
	 * A limit's shaping as configured; a limit without it meters.
	 *
	 * @param maxDelay the longest a request may be held
	 * @param delayAfter units of a leaky bucket's queue that pass at once, if set
	 */
	public record ShapingSpec(@Nullable Duration maxDelay, @Nullable Long delayAfter) {
	}

	/**
	 * Which requests a policy applies to and which clients it exempts, as configured.
	 *
	 * @param methods the methods of the requests it applies to, if set
	 * @param paths the path patterns of the requests it applies to, if set
	 * @param exemptAddresses the client addresses and CIDR blocks it never limits
	 * @param exemptApiKeys the configured API keys it never limits
	 * @param exemptTiers the tiers of its own it never limits
	 */
	public record ScopeSpec(@Nullable List<String> methods, @Nullable List<String> paths,
			List<String> exemptAddresses, List<String> exemptApiKeys, List<String> exemptTiers) {

		/**
		 * Nothing set: the policy applies to every request and exempts no one.
		 */
		public static final ScopeSpec EVERY_REQUEST = new ScopeSpec(null, null, List.of(), List.of(), List.of());

	}

}
