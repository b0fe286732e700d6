package dev.ratelimit.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import dev.ratelimit.actuate.RateLimitTotals.Totals;
import dev.ratelimit.algorithm.Block;
import dev.ratelimit.algorithm.Nanos;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.policy.DurationFormat;
import dev.ratelimit.policy.PolicyReloads;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.RequestScope;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BlockSnapshot;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketInspector;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStores;
import dev.ratelimit.store.LimitSnapshot;
import dev.ratelimit.web.HeldRequests;
import dev.ratelimit.web.RateLimitWebFilter;
import dev.ratelimit.web.RateLimitedRoutes;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.http.HttpMethod;
import org.springframework.util.MimeType;
import org.springframework.web.util.pattern.PathPattern;

/**
 * {@link Endpoint @Endpoint} that shows the rate limit policies, the routes that apply
 * them, their live buckets and penalty blocks and the last live reload, resets one
 * client's buckets and lifts its blocks. Read access by default: resetting and lifting
 * need {@code management.endpoint.ratelimits.access=unrestricted}. Keys in listings are
 * masked by a {@link KeyMasker}; selectors take raw keys, so an operator who knows a
 * key can look it up, reset it or lift its block.
 */
@Endpoint(id = "ratelimits", defaultAccess = Access.READ_ONLY)
public class RateLimitsEndpoint {

	static final int DEFAULT_LIMIT = 100;

	/**
	 * The most buckets one listing shows: a listing holds that many snapshots at once,
	 * and a store may hold millions of buckets.
	 */
	static final int MAX_LIMIT = 10_000;

	/**
	 * The last segment of a block's path, {@code /ratelimits/{policy}/{key}/block}.
	 */
	static final String BLOCK_SEGMENT = "block";

	private final Supplier<RateLimitPolicies> policies;

	private final BucketStores stores;

	private final KeyMasker keyMasker;

	private final PolicyOverview overview;

	/**
	 * @param policies the configured policies
	 * @param stores the stores, of which each policy's is inspected
	 * @param totals the decisions counted so far
	 * @param keyMasker how listings show keys
	 * @param routes which routes use each policy, or {@code null} outside a gateway
	 */
	public RateLimitsEndpoint(RateLimitPolicies policies, BucketStores stores, RateLimitTotals totals,
			KeyMasker keyMasker, @Nullable RateLimitedRoutes routes) {
		this(() -> policies, stores, totals, keyMasker, routes, List.of(), null);
	}

	/**
	 * An endpoint showing the policies in force at each call, reloaded ones included,
	 * and the last reload; no held requests.
	 * @param policies the policies in force
	 * @param webRoutes the routes of {@code ratelimit.web.routes}
	 * @param reloads the outcome of the live reloads, or {@code null} when the policies
	 * are never reloaded
	 * @see #RateLimitsEndpoint(Supplier, BucketStores, RateLimitTotals, KeyMasker,
	 * RateLimitedRoutes, List, PolicyReloads, HeldRequests)
	 */
	public RateLimitsEndpoint(Supplier<RateLimitPolicies> policies, BucketStores stores, RateLimitTotals totals,
			KeyMasker keyMasker, @Nullable RateLimitedRoutes routes, List<RateLimitWebFilter.Route> webRoutes,
			@Nullable PolicyReloads reloads) {
		this(policies, stores, totals, keyMasker, routes, webRoutes, reloads, null);
	}

	/**
	 * An endpoint showing the policies in force at each call, reloaded ones included,
	 * the last reload, and the requests this node holds for shaping.
	 * @param policies the policies in force
	 * @param webRoutes the routes of {@code ratelimit.web.routes}
	 * @param reloads the outcome of the live reloads, or {@code null} when the policies
	 * are never reloaded
	 * @param held this node's held requests, or {@code null} when it holds none (no
	 * request path)
	 * @see #RateLimitsEndpoint(RateLimitPolicies, BucketStores, RateLimitTotals, KeyMasker,
	 * RateLimitedRoutes)
	 */
	public RateLimitsEndpoint(Supplier<RateLimitPolicies> policies, BucketStores stores, RateLimitTotals totals,
			KeyMasker keyMasker, @Nullable RateLimitedRoutes routes, List<RateLimitWebFilter.Route> webRoutes,
			@Nullable PolicyReloads reloads, @Nullable HeldRequests held) {
		this.policies = policies;
		this.stores = stores;
		this.keyMasker = keyMasker;
		this.overview = new PolicyOverview(policies, stores, totals, routes, webRoutes, reloads, held);
	}

	/**
	 * Every policy: its tiers and limits as configured, the routes that use it, its
	 * live buckets and its decisions so far; the last reload of the settings; and the
	 * requests this node holds for shaping.
	 */
	@ReadOperation
	public Mono<RateLimitsDescriptor> rateLimits() {
		return this.overview.describe();
	}

	/**
	 * The policy's live buckets, hottest first: most requests, then closest to
	 * exhaustion; and its penalty blocks in force, longest left first. Walks the store's
	 * buckets and its blocks once each, keeping only {@code limit} of each. Empty (404)
	 * when the policy is unknown or its store cannot be inspected.
	 * @param policy the policy id
	 * @param limit how many buckets to show, a whole number from 1 to 10,000; 100 when
	 * absent. Read as text, so that a value that is no number is refused with the same
	 * reason as one out of range
	 * @return a {@link BucketsDescriptor}, or, when {@code limit} is invalid, a 400
	 * whose {@link InvalidParameterDescriptor} body says why
	 */
	@ReadOperation
	public Mono<WebEndpointResponse<Object>> buckets(@Selector String policy, @Nullable String limit) {
		RateLimitPolicy rateLimitPolicy = this.policies.get().policy(policy);
		if (rateLimitPolicy == null) {
			return Mono.empty();
		}
		int shown = (limit != null) ? parseLimit(limit) : DEFAULT_LIMIT;
		if (shown < 1 || shown > MAX_LIMIT) {
			return Mono.just(InvalidParameterDescriptor.response("limit", limit,
					"must be a whole number from 1 to " + MAX_LIMIT));
		}
		BucketInspector store = this.stores.inspector(rateLimitPolicy);
		if (store == null) {
			return Mono.empty();
		}
		Mono<List<BucketDescriptor>> hottest = store.buckets(rateLimitPolicy)
			.collect(() -> new HottestBuckets(shown), HottestBuckets::offer)
			.map((buckets) -> describe(rateLimitPolicy, buckets.hottestFirst()));
		Mono<LongestBlocks> blocks = store.blocks(rateLimitPolicy)
			.collect(() -> new LongestBlocks(shown), LongestBlocks::offer);
		return Mono.zip(store.bucketCount(rateLimitPolicy), hottest, blocks)
			.map((found) -> new WebEndpointResponse<>(new BucketsDescriptor(policy, store.name(), found.getT1(),
					found.getT2(), found.getT3().count(), describeBlocks(found.getT3().longestFirst()))));
	}

	/**
	 * One client's buckets: one per tier it was judged under, and its penalty blocks in
	 * force. Empty (404) when the policy is unknown, its store cannot be inspected, or
	 * the key has neither a bucket nor a block.
	 * @param policy the policy id
	 * @param key the raw client key, or the {@code sha256:} digest a long key is kept as
	 */
	@ReadOperation
	public Mono<ClientBucketsDescriptor> clientBuckets(@Selector String policy, @Selector String key) {
		RateLimitPolicy rateLimitPolicy = this.policies.get().policy(policy);
		if (rateLimitPolicy == null) {
			return Mono.empty();
		}
		BucketInspector store = this.stores.inspector(rateLimitPolicy);
		if (store == null) {
			return Mono.empty();
		}
		String lookupKey = BucketId.lookupKey(key);
		return Mono.zip(store.bucket(rateLimitPolicy, lookupKey).collectList(),
				store.blocks(rateLimitPolicy, lookupKey).collectList())
			.filter((found) -> !found.getT1().isEmpty() || !found.getT2().isEmpty())
			.map((found) -> new ClientBucketsDescriptor(policy, store.name(), describe(rateLimitPolicy, found.getT1()),
					describeBlocks(found.getT2())));
	}

	/**
	 * Forgets one client's buckets so that its next request is judged as new.
	 * @param policy the policy id
	 * @param key the raw client key, or the {@code sha256:} digest a long key is kept as
	 * @return 204 when buckets were reset, 404 when the policy is unknown, its store
	 * cannot be inspected, or the key has no bucket
	 */
	@DeleteOperation
	public Mono<WebEndpointResponse<Void>> reset(@Selector String policy, @Selector String key) {
		RateLimitPolicy rateLimitPolicy = this.policies.get().policy(policy);
		BucketInspector store = (rateLimitPolicy != null) ? this.stores.inspector(rateLimitPolicy) : null;
		if (store == null) {
			return Mono.just(new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND));
		}
		return store.reset(rateLimitPolicy, BucketId.lookupKey(key))
			.map((reset) -> new WebEndpointResponse<>(
					reset ? WebEndpointResponse.STATUS_NO_CONTENT : WebEndpointResponse.STATUS_NOT_FOUND));
	}

	/**
	 * Lifts one client's penalty blocks and forgets its record, so that its next request
	 * is judged by its limits and its next breach serves the first step; its buckets
	 * stay as they are. Guarded as {@link #reset} is: a write operation.
	 * @param policy the policy id
	 * @param key the raw client key, or the {@code sha256:} digest a long key is kept as
	 * @param block {@code block}, the path's last segment
	 * @return 204 when a block or record was lifted, 404 when the policy is unknown, its
	 * store cannot be inspected, the key has neither, or the last segment is not
	 * {@code block}
	 */
	@DeleteOperation
	public Mono<WebEndpointResponse<Void>> liftBlock(@Selector String policy, @Selector String key,
			@Selector String block) {
		RateLimitPolicy rateLimitPolicy = this.policies.get().policy(policy);
		BucketInspector store = (rateLimitPolicy != null && BLOCK_SEGMENT.equals(block))
				? this.stores.inspector(rateLimitPolicy) : null;
		if (store == null) {
			return Mono.just(new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND));
		}
		return store.lift(rateLimitPolicy, BucketId.lookupKey(key))
			.map((lifted) -> new WebEndpointResponse<>(
					lifted ? WebEndpointResponse.STATUS_NO_CONTENT : WebEndpointResponse.STATUS_NOT_FOUND));
	}

	/**
	 * The limit, or {@code 0} (out of range) when it is no whole number.
	 */
	private static int parseLimit(String limit) {
		try {
			return Integer.parseInt(limit.strip());
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	private List<BucketDescriptor> describe(RateLimitPolicy policy, List<BucketSnapshot> buckets) {
		List<BucketDescriptor> descriptors = new ArrayList<>(buckets.size());
		for (BucketSnapshot bucket : buckets) {
			descriptors.add(new BucketDescriptor(this.keyMasker.display(bucket.id().key()), bucket.id().tier(),
					bucket.requests(), describe(policy, bucket)));
		}
		return descriptors;
	}

	private List<BlockDescriptor> describeBlocks(List<BlockSnapshot> blocks) {
		List<BlockDescriptor> descriptors = new ArrayList<>(blocks.size());
		for (BlockSnapshot snapshot : blocks) {
			Block block = snapshot.block();
			descriptors.add(new BlockDescriptor(this.keyMasker.display(snapshot.id().key()), snapshot.id().tier(),
					block.step(), Nanos.ceilSeconds(snapshot.remainingNanos()),
					Instant.ofEpochSecond(Nanos.ceilSeconds(block.untilNanos()))));
		}
		return descriptors;
	}

	private static List<BucketLimitDescriptor> describe(RateLimitPolicy policy, BucketSnapshot bucket) {
		Tier tier = policy.tiers().getOrDefault(bucket.id().tier(), policy.defaultTier());
		List<BucketLimitDescriptor> limits = new ArrayList<>(bucket.limits().size());
		for (int i = 0; i < bucket.limits().size(); i++) {
			LimitSnapshot limit = bucket.limits().get(i);
			// A bucket left from a tier a reload removed may have more limits than the default tier.
			String name = (i < tier.limits().size()) ? tier.limitName(policy.id(), i) : null;
			limits.add(new BucketLimitDescriptor(name, limit.algorithm(), limit.limit(), limit.remaining(),
					limit.resetSeconds(), limit.state()));
		}
		return limits;
	}

	/**
	 * Why a request to the endpoint was refused, as RFC 9457 problem details (section 3):
	 * which parameter, what it was and what it must be. Boot's own 400 for an
	 * {@code InvalidEndpointRequestException} carries its reason only when
	 * {@code server.error.include-message} says so, so the endpoint answers with this
	 * body itself.
	 *
	 * @param type {@code about:blank}: the status says what kind of problem it is
	 * (RFC 9457, section 4.2.1)
	 * @param title the status's reason phrase, as section 4.2.1 asks
	 * @param status the HTTP status, 400
	 * @param detail the parameter, its value and what it must be, in one sentence
	 * @param parameter the name of the invalid parameter
	 * @param value the value it had
	 */
	public record InvalidParameterDescriptor(String type, String title, int status, String detail, String parameter,
			String value) {

		private static final MimeType PROBLEM_JSON = MimeType.valueOf("application/problem+json");

		static WebEndpointResponse<Object> response(String parameter, String value, String rule) {
			String detail = parameter + " " + rule + ", was '" + value + "'";
			return new WebEndpointResponse<>(new InvalidParameterDescriptor("about:blank", "Bad Request",
					WebEndpointResponse.STATUS_BAD_REQUEST, detail, parameter, value),
					WebEndpointResponse.STATUS_BAD_REQUEST, PROBLEM_JSON);
		}

	}

	/**
	 * The rate limits of the application.
	 *
	 * @param stores the names of the stores policies keep their buckets in
	 * @param heldRequests the requests this node holds for shaping, or {@code null}
	 * when it has no request path to hold them
	 * @param policies the policies by id
	 * @param routes every route that applies a policy: gateway routes in the order of
	 * their definitions, then routes built in Java, then {@code ratelimit.web.routes}
	 * @param lastReload the last live reload of the settings, or {@code null} when they
	 * were not reloaded since start-up
	 */
	public record RateLimitsDescriptor(List<String> stores, @Nullable HeldRequestsDescriptor heldRequests,
			Map<String, PolicyDescriptor> policies, List<RouteDescriptor> routes,
			@Nullable ReloadDescriptor lastReload) implements OperationResponseBody {

		public RateLimitsDescriptor {
			stores = List.copyOf(stores);
			policies = Collections.unmodifiableMap(new LinkedHashMap<>(policies));
			routes = List.copyOf(routes);
		}

	}

	/**
	 * The requests this node holds for shaping, shared by every policy and route.
	 *
	 * @param held held now
	 * @param max the most held at once ({@code ratelimit.shaping.max-held-requests});
	 * a request a limit would hold beyond it is answered with 503
	 */
	public record HeldRequestsDescriptor(int held, int max) {

	}

	/**
	 * A route that applies a policy.
	 *
	 * @param id the route's id
	 * @param policy the id of the policy it applies
	 * @param filter what applies it: {@code RateLimit} or {@code RequestRateLimiter} (a
	 * gateway route), or {@code ratelimit.web.routes}
	 * @param key whose quota its requests count against: the policy's {@code key}, or the
	 * {@code KeyResolver} of a {@code RequestRateLimiter} route (the one it names, else
	 * the filter's default); {@code null} when it names a policy that does not exist
	 * @param paths the path patterns of a web route; {@code null} for a gateway route,
	 * whose predicates decide
	 * @param methods the methods of a web route, empty for any; {@code null} for a
	 * gateway route
	 */
	public record RouteDescriptor(String id, String policy, String filter, @Nullable String key,
			@Nullable List<String> paths, @Nullable List<String> methods) {

	}

	/**
	 * A live reload of the rate limit settings.
	 *
	 * @param at when it happened
	 * @param outcome {@code accepted} (in force) or {@code rejected} (the policies in
	 * force stayed)
	 * @param changedKeys the changed {@code ratelimit.*} keys
	 * @param problems why it was rejected; empty when it was accepted
	 */
	public record ReloadDescriptor(Instant at, String outcome, List<String> changedKeys,
			List<ProblemDescriptor> problems) {

		public ReloadDescriptor {
			changedKeys = List.copyOf(changedKeys);
			problems = List.copyOf(problems);
		}

	}

	/**
	 * One problem of rejected settings, as the start-up report names it.
	 *
	 * @param property the property path
	 * @param value the offending value, or {@code null} when the property is missing
	 * @param rule what the value must be
	 */
	public record ProblemDescriptor(String property, @Nullable String value, String rule) {

	}

	/**
	 * A policy as configured, with its live state.
	 *
	 * @param id the policy id
	 * @param key whose quota a request counts against, as configured; when only
	 * {@code RequestRateLimiter} routes use the policy, their {@code KeyResolver}s,
	 * which decide instead
	 * @param shadow whether the policy only reports and never rejects
	 * @param cost units one request consumes
	 * @param store the store its buckets live in
	 * @param routes the ids of the routes that use it, web routes included
	 * @param liveBuckets how many buckets it has now (may be approximate), or
	 * {@code null} when its store could not count them
	 * @param liveBucketsError why its store could not count its buckets, or
	 * {@code null}
	 * @param totals its decisions since start-up
	 * @param defaultTier the tier used for tiers it does not list
	 * @param tiers its limits by tier name
	 * @param penalty its penalty box as configured, or {@code null} when it has none
	 * @param scope the requests it applies to and the clients it exempts, or
	 * {@code null} when it applies to every request and exempts no one
	 */
	public record PolicyDescriptor(String id, String key, boolean shadow, long cost, String store,
			List<String> routes, @Nullable Long liveBuckets, @Nullable String liveBucketsError, Totals totals,
			String defaultTier,
			Map<String, List<LimitDescriptor>> tiers, @Nullable PenaltyDescriptor penalty,
			@Nullable ScopeDescriptor scope) {

		public PolicyDescriptor {
			routes = List.copyOf(routes);
			tiers = Collections.unmodifiableMap(new TreeMap<>(tiers));
		}

	}

	/**
	 * A policy's penalty box as configured, durations as configured ({@code 10m}).
	 *
	 * @param blockFor how long each step blocks a client, in order
	 * @param forgiveAfter how long after its block a client without a breach is
	 * forgiven; {@code null} for one step
	 */
	public record PenaltyDescriptor(List<String> blockFor, @Nullable String forgiveAfter) {

		public PenaltyDescriptor {
			blockFor = List.copyOf(blockFor);
		}

		static @Nullable PenaltyDescriptor of(@Nullable Penalty penalty) {
			if (penalty == null) {
				return null;
			}
			Duration forgiveAfter = penalty.forgiveAfter();
			return new PenaltyDescriptor(penalty.blockFor().stream().map(DurationFormat::asConfigured).toList(),
					(forgiveAfter != null) ? DurationFormat.asConfigured(forgiveAfter) : null);
		}

	}

	/**
	 * The requests a policy applies to and the clients it exempts, as configured; the
	 * exempt API keys are counted, never shown.
	 *
	 * @param methods the methods it applies to, every method when empty
	 * @param paths the path patterns it applies to, every path when empty
	 * @param exemptAddresses the client addresses and blocks it exempts
	 * @param exemptApiKeys how many API keys it exempts
	 * @param exemptTiers the tiers it exempts
	 */
	public record ScopeDescriptor(List<String> methods, List<String> paths, List<String> exemptAddresses,
			int exemptApiKeys, List<String> exemptTiers) {

		public ScopeDescriptor {
			methods = List.copyOf(methods);
			paths = List.copyOf(paths);
			exemptAddresses = List.copyOf(exemptAddresses);
			exemptTiers = List.copyOf(exemptTiers);
		}

		static @Nullable ScopeDescriptor of(RequestScope scope) {
			if (scope.coversEveryRequest() && scope.exemptsNoOne()) {
				return null;
			}
			return new ScopeDescriptor(scope.methods().stream().map(HttpMethod::name).sorted().toList(),
					scope.paths().stream().map(PathPattern::getPatternString).toList(),
					scope.exemptAddresses().stream().map(Object::toString).toList(), scope.exemptApiKeys().size(),
					scope.exemptTiers().stream().sorted().toList());
		}

	}

	/**
	 * A limit as configured.
	 *
	 * @param name the name clients are told, in {@code draft-11} headers and 429 bodies'
	 * {@code violated-policies}
	 * @param algorithm the algorithm's configuration name
	 * @param parameters its parameters by property name, durations as configured
	 * ({@code 1m}, {@code 500ms})
	 */
	public record LimitDescriptor(String name, String algorithm, Map<String, Object> parameters) {

		public LimitDescriptor {
			parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
		}

	}

	/**
	 * The hottest live buckets of a policy.
	 *
	 * @param policy the policy id
	 * @param store the store the buckets live in
	 * @param liveBuckets how many buckets the policy has in all (may be approximate)
	 * @param buckets the hottest buckets, hottest first
	 * @param blockedKeys how many buckets a penalty block refuses now
	 * @param blocks the blocks in force, longest left first, as many as buckets are shown
	 * at most
	 */
	public record BucketsDescriptor(String policy, String store, long liveBuckets,
			List<BucketDescriptor> buckets, long blockedKeys, List<BlockDescriptor> blocks)
			implements OperationResponseBody {

		public BucketsDescriptor {
			buckets = List.copyOf(buckets);
			blocks = List.copyOf(blocks);
		}

	}

	/**
	 * One client's buckets in a policy.
	 *
	 * @param policy the policy id
	 * @param store the store the buckets live in
	 * @param buckets one bucket per tier the client was judged under
	 * @param blocks its penalty blocks in force, one per tier it breached under
	 */
	public record ClientBucketsDescriptor(String policy, String store,
			List<BucketDescriptor> buckets, List<BlockDescriptor> blocks) implements OperationResponseBody {

		public ClientBucketsDescriptor {
			buckets = List.copyOf(buckets);
			blocks = List.copyOf(blocks);
		}

	}

	/**
	 * A penalty block in force.
	 *
	 * @param key the client key, masked unless keys are shown
	 * @param tier the tier whose bucket is blocked
	 * @param step the step of {@code block-for} it serves, counted from 1
	 * @param secondsLeft whole seconds until it ends, rounded up, as {@code Retry-After}
	 * says
	 * @param until when it ends, to the second, rounded up
	 */
	public record BlockDescriptor(String key, String tier, int step, long secondsLeft, Instant until) {

	}

	/**
	 * A live bucket.
	 *
	 * @param key the client key, masked unless keys are shown
	 * @param tier the tier it was judged under
	 * @param requests requests judged against it since it was created
	 * @param limits its limits as they stand now, in the tier's order
	 */
	public record BucketDescriptor(String key, String tier, long requests, List<BucketLimitDescriptor> limits) {

		public BucketDescriptor {
			limits = List.copyOf(limits);
		}

	}

	/**
	 * One limit of a live bucket, as it stands now.
	 *
	 * @param name the name clients are told, as in the policy's tier; {@code null} when
	 * the bucket has more limits than the tier in force
	 * @param algorithm the algorithm's configuration name
	 * @param limit the quota: limit or capacity
	 * @param remaining whole units left now
	 * @param resetSeconds seconds until the remaining count next goes up, as in the
	 * response headers; {@code 0} when the whole quota is left
	 * @param state the algorithm's own state
	 */
	public record BucketLimitDescriptor(@Nullable String name, String algorithm, long limit, long remaining,
			long resetSeconds, Map<String, Number> state) {

	}

}
