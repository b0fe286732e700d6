package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.policy.ForwardedHeader;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.web.HeaderStyle;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Name;

/**
 * Configuration of rate limiting: plan tiers, per-route policies and where bucket
 * state lives. Bound once at start-up and turned into validated
 * {@link dev.ratelimit.policy.RateLimitPolicies}.
 * <p>
 * The one place the {@code ratelimit.*} keys are declared, so that the generated
 * configuration metadata and the reference docs come from one class.
 */
@ConfigurationProperties("ratelimit")
public class RateLimitProperties {

	/**
	 * Whether rate limiting is enabled. When false, the RateLimit filter lets every
	 * request through untouched.
	 */
	private boolean enabled = true;

	/**
	 * Name of the request header that carries the client's API key.
	 */
	private String apiKeyHeader = "X-API-Key";

	/**
	 * Style of the rate limit headers written on every response of a limited route.
	 */
	private HeaderStyle headers = HeaderStyle.DRAFT_06;

	/**
	 * Store that holds bucket state for policies that do not choose their own.
	 */
	private StoreType store = StoreType.CAFFEINE;

	/**
	 * Plan tiers and the API keys that belong to them.
	 */
	private final Tiers tiers = new Tiers();

	/**
	 * Rate limit policies by id; routes name a policy in their RateLimit filter.
	 */
	private Map<String, Policy> policies = new LinkedHashMap<>();

	/**
	 * In-memory (Caffeine) store settings.
	 */
	private final Caffeine caffeine = new Caffeine();

	/**
	 * This node's bounds on requests held by shaping limits.
	 */
	private final NodeShaping shaping = new NodeShaping();

	/**
	 * Rate limiting of a plain Spring WebFlux application, without Spring Cloud Gateway.
	 */
	private final Web web = new Web();

	/**
	 * The problem body of a rejection (429).
	 */
	private final Problem problem = new Problem();

	/**
	 * Proxies in front of the gateway (load balancers, CDN edges) whose forwarding
	 * header says who the client is: IPv4 or IPv6 addresses or CIDR blocks, such as
	 * 10.0.0.0/8 or 2001:db8::/32. Empty by default: the client is always the
	 * connection's remote address, and a forwarding header, which any client can write,
	 * is ignored.
	 */
	private List<String> trustedProxies = new ArrayList<>();

	/**
	 * Header the trusted proxies append their client's address to: 'x-forwarded-for'
	 * or 'forwarded' (RFC 7239). Only this one is read: a proxy passes the other on as
	 * the client wrote it.
	 */
	private ForwardedHeader forwardedHeader = ForwardedHeader.X_FORWARDED_FOR;

	/**
	 * Whether keys under 'ratelimit' that no property binds are let pass. By default
	 * such a key (a misspelt 'refil-period', say, which would leave the default period
	 * in force) stops start-up and a live reload, named with the nearest valid key.
	 */
	private boolean ignoreUnknownKeys;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getApiKeyHeader() {
		return this.apiKeyHeader;
	}

	public void setApiKeyHeader(String apiKeyHeader) {
		this.apiKeyHeader = apiKeyHeader;
	}

	public HeaderStyle getHeaders() {
		return this.headers;
	}

	public void setHeaders(HeaderStyle headers) {
		this.headers = headers;
	}

	public StoreType getStore() {
		return this.store;
	}

	public void setStore(StoreType store) {
		this.store = store;
	}

	public Tiers getTiers() {
		return this.tiers;
	}

	public Map<String, Policy> getPolicies() {
		return this.policies;
	}

	public void setPolicies(Map<String, Policy> policies) {
		this.policies = policies;
	}

	public Caffeine getCaffeine() {
		return this.caffeine;
	}

	public NodeShaping getShaping() {
		return this.shaping;
	}

	public Problem getProblem() {
		return this.problem;
	}

	public Web getWeb() {
		return this.web;
	}

	public List<String> getTrustedProxies() {
		return this.trustedProxies;
	}

	public void setTrustedProxies(List<String> trustedProxies) {
		this.trustedProxies = trustedProxies;
	}

	public ForwardedHeader getForwardedHeader() {
		return this.forwardedHeader;
	}

	public void setForwardedHeader(ForwardedHeader forwardedHeader) {
		this.forwardedHeader = forwardedHeader;
	}

	public boolean isIgnoreUnknownKeys() {
		return this.ignoreUnknownKeys;
	}

	public void setIgnoreUnknownKeys(boolean ignoreUnknownKeys) {
		this.ignoreUnknownKeys = ignoreUnknownKeys;
	}

	/**
	 * Plan tiers and the API keys that belong to them.
	 */
	public static class Tiers {

		/**
		 * Tier of a request with no API key or an unknown one. Every policy must list
		 * this tier.
		 */
		@Name("default")
		private String defaultTier = "anonymous";

		/**
		 * Tier of each known API key, keyed by the API key.
		 */
		private Map<String, String> apiKeys = new LinkedHashMap<>();

		/**
		 * Request header naming the tier, trusted as set by an upstream authentication
		 * service (which must overwrite whatever a client sends). A request without it
		 * gets its API key's tier; a tier name a policy does not list gets the default
		 * tier. Not together with 'claim'.
		 */
		private String header;

		/**
		 * Claim of the request's OAuth2 token (a JWT or an introspected opaque token,
		 * authenticated by Spring Security's resource server) naming the tier, such as
		 * 'plan'. A request without a token or without a string claim of that name gets
		 * its API key's tier; a tier name a policy does not list gets the default tier.
		 * Needs spring-security-oauth2-resource-server. Not together with 'header'.
		 */
		private String claim;

		public String getDefaultTier() {
			return this.defaultTier;
		}

		public void setDefaultTier(String defaultTier) {
			this.defaultTier = defaultTier;
		}

		public Map<String, String> getApiKeys() {
			return this.apiKeys;
		}

		public void setApiKeys(Map<String, String> apiKeys) {
			this.apiKeys = apiKeys;
		}

		public String getHeader() {
			return this.header;
		}

		public void setHeader(String header) {
			this.header = header;
		}

		public String getClaim() {
			return this.claim;
		}

		public void setClaim(String claim) {
			this.claim = claim;
		}

	}

	/**
	 * One policy: whose quota a request counts against and the limits of each tier.
	 */
	public static class Policy {

		/**
		 * Whose quota a request counts against: 'api-key' (client IP when the request
		 * has no known key), 'ip', 'principal', 'route', 'method', 'path',
		 * 'header:<Name>', 'query:<Name>', 'cookie:<Name>', 'claim:<Name>' or
		 * '#{@beanName}' (a Spring Cloud Gateway KeyResolver bean); or a list of them,
		 * such as [ip, header:X-Tenant], for one quota per combination.
		 */
		private List<String> key = new ArrayList<>(List.of("api-key"));

		/**
		 * Whether requests over the limit are counted and reported in headers but let
		 * through, to try a policy before enforcing it.
		 */
		private boolean shadow;

		/**
		 * Units one request consumes from every limit of its tier. With
		 * cost-from-response, the estimate a request needs room for and takes on
		 * admission, replaced by the cost its response reports.
		 */
		private long cost = 1;

		/**
		 * Request header saying how many units a request consumes, trusted as set by an
		 * upstream service; 'cost' applies to requests without it. A value that is not a
		 * whole number from 1 to the smallest quota of the request's tier is answered
		 * with 400 and a problem body. With cost-from-response, the estimate taken on
		 * admission.
		 */
		private @Nullable String costHeader;

		/**
		 * Responses whose requests take their cost: statuses and classes of statuses,
		 * such as [401, 403] or [4xx, 5xx]. A request is forwarded only when its limits
		 * have room for its cost, which is taken once its response has a listed status;
		 * a client whose limits are exhausted is refused until they have room again.
		 * Unset: every admitted request takes its cost.
		 */
		private @Nullable List<String> countResponses;

		/**
		 * Where the response says what its request cost: 'header:<Name>' (a whole number
		 * in an upstream response header), 'json:<JSON Pointer>' (RFC 6901; a number in a
		 * JSON body, or in the data of the last event of a text/event-stream that has it)
		 * or 'resolver' (the application's ResponseCostResolver bean). The request takes
		 * 'cost' (or cost-header's value) on admission as an estimate, and the response's
		 * cost replaces it; when the response says nothing usable, the estimate stands.
		 */
		private @Nullable String costFromResponse;

		/**
		 * Whether the response header the cost is read from is removed from the response
		 * the client gets. Only with cost-from-response 'header:<Name>'.
		 */
		private boolean hideResponseCostHeader;

		/**
		 * Store that holds this policy's buckets, overriding 'ratelimit.store'.
		 */
		private @Nullable StoreType store;

		/**
		 * Limits of each tier, keyed by tier name; a request must pass every limit of
		 * its tier. Must include the default tier.
		 */
		private Map<String, List<LimitSpec>> tiers = new LinkedHashMap<>();

		/**
		 * What a request gets when the key, or a part of a composite key, yields nothing
		 * (no authenticated principal, no such header, query parameter, cookie or claim,
		 * a KeyResolver that yields nothing): 'client-address' (counted against its
		 * client address's quota) or 'reject' (answered with missing-key-status, never
		 * forwarded). 'reject' applies only to keys a request may lack.
		 */
		private OnMissingKey onMissingKey = OnMissingKey.CLIENT_ADDRESS;

		/**
		 * HTTP status of a request rejected for having no key, with on-missing-key
		 * 'reject': 400 to 599, except 401, 405 and 407, whose responses must carry
		 * headers a rate limiter cannot know. Defaults to 403.
		 */
		private @Nullable Integer missingKeyStatus;

		/**
		 * Methods of the requests the policy applies to, in upper case, such as [POST];
		 * a request of another method passes uncounted, without rate limit headers.
		 * Unset: every method.
		 */
		private @Nullable List<String> methods;

		/**
		 * Path patterns (Spring's PathPattern syntax, such as /api/**) one of which the
		 * path of a request the policy applies to matches, within the context path; a
		 * request on another path passes uncounted, without rate limit headers. Unset:
		 * every path.
		 */
		private @Nullable List<String> paths;

		/**
		 * Clients the policy never counts nor limits.
		 */
		private Exempt exempt = new Exempt();

		/**
		 * Penalty box: a request the policy's limits refuse blocks its client's bucket
		 * for block-for, even once the limits would have room again; requests while
		 * blocked get 429 at once, taking nothing. Off unless set.
		 */
		private @Nullable Penalty penalty;

		public List<String> getKey() {
			return this.key;
		}

		public void setKey(List<String> key) {
			this.key = key;
		}

		public boolean isShadow() {
			return this.shadow;
		}

		public void setShadow(boolean shadow) {
			this.shadow = shadow;
		}

		public long getCost() {
			return this.cost;
		}

		public void setCost(long cost) {
			this.cost = cost;
		}

		public @Nullable String getCostHeader() {
			return this.costHeader;
		}

		public void setCostHeader(@Nullable String costHeader) {
			this.costHeader = costHeader;
		}

		public @Nullable List<String> getCountResponses() {
			return this.countResponses;
		}

		public void setCountResponses(@Nullable List<String> countResponses) {
			this.countResponses = countResponses;
		}

		public @Nullable String getCostFromResponse() {
			return this.costFromResponse;
		}

		public void setCostFromResponse(@Nullable String costFromResponse) {
			this.costFromResponse = costFromResponse;
		}

		public boolean isHideResponseCostHeader() {
			return this.hideResponseCostHeader;
		}

		public void setHideResponseCostHeader(boolean hideResponseCostHeader) {
			this.hideResponseCostHeader = hideResponseCostHeader;
		}

		public @Nullable StoreType getStore() {
			return this.store;
		}

		public void setStore(@Nullable StoreType store) {
			this.store = store;
		}

		public Map<String, List<LimitSpec>> getTiers() {
			return this.tiers;
		}

		public void setTiers(Map<String, List<LimitSpec>> tiers) {
			this.tiers = tiers;
		}

		public OnMissingKey getOnMissingKey() {
			return this.onMissingKey;
		}

		public void setOnMissingKey(OnMissingKey onMissingKey) {
			this.onMissingKey = onMissingKey;
		}

		public @Nullable Integer getMissingKeyStatus() {
			return this.missingKeyStatus;
		}

		public void setMissingKeyStatus(@Nullable Integer missingKeyStatus) {
			this.missingKeyStatus = missingKeyStatus;
		}

		public @Nullable List<String> getMethods() {
			return this.methods;
		}

		public void setMethods(@Nullable List<String> methods) {
			this.methods = methods;
		}

		public @Nullable List<String> getPaths() {
			return this.paths;
		}

		public void setPaths(@Nullable List<String> paths) {
			this.paths = paths;
		}

		public Exempt getExempt() {
			return this.exempt;
		}

		public void setExempt(Exempt exempt) {
			this.exempt = exempt;
		}

		public @Nullable Penalty getPenalty() {
			return this.penalty;
		}

		public void setPenalty(@Nullable Penalty penalty) {
			this.penalty = penalty;
		}

	}

	/**
	 * Clients a policy never counts nor limits: their requests pass without rate limit
	 * headers, told to listeners and metrics as exempt.
	 */
	public static class Exempt {

		/**
		 * Client addresses and CIDR blocks, such as 10.0.0.0/8, matched against the
		 * client address as the trusted proxies resolve it.
		 */
		private List<String> addresses = new ArrayList<>();

		/**
		 * API keys, each configured under ratelimit.tiers.api-keys.
		 */
		private List<String> apiKeys = new ArrayList<>();

		/**
		 * Tiers of the policy whose requests are exempt.
		 */
		private List<String> tiers = new ArrayList<>();

		public List<String> getAddresses() {
			return this.addresses;
		}

		public void setAddresses(List<String> addresses) {
			this.addresses = addresses;
		}

		public List<String> getApiKeys() {
			return this.apiKeys;
		}

		public void setApiKeys(List<String> apiKeys) {
			this.apiKeys = apiKeys;
		}

		public List<String> getTiers() {
			return this.tiers;
		}

		public void setTiers(List<String> tiers) {
			this.tiers = tiers;
		}

	}

	/**
	 * A policy's penalty box: how long a breach blocks its client, escalating with each
	 * breach after a block, and when a client's record is forgiven.
	 */
	public static class Penalty {

		/**
		 * How long a breach blocks the client: one duration (10m), or the steps of an
		 * escalation ([1m, 10m, 1h]), each breach after a block ended serving the next
		 * step, the last one repeating. Required.
		 */
		private List<Duration> blockFor = new ArrayList<>();

		/**
		 * How long after its block ended a client without a breach is forgiven, its
		 * next breach serving the first step again. Required with more than one
		 * block-for step; not set with one.
		 */
		private @Nullable Duration forgiveAfter;

		public List<Duration> getBlockFor() {
			return this.blockFor;
		}

		public void setBlockFor(List<Duration> blockFor) {
			this.blockFor = blockFor;
		}

		public @Nullable Duration getForgiveAfter() {
			return this.forgiveAfter;
		}

		public void setForgiveAfter(@Nullable Duration forgiveAfter) {
			this.forgiveAfter = forgiveAfter;
		}

	}

	/**
	 * One limit of a tier: an algorithm and the parameters it takes.
	 */
	public static class LimitSpec {

		/**
		 * Name of the limit in draft-11 headers and in the violated-policies of 429
		 * bodies: non-blank printable ASCII, unique within the tier. Defaults to
		 * '<policy>-<tier>-<n>', n counting the tier's limits from 1.
		 */
		private @Nullable String name;

		/**
		 * Algorithm: 'fixed-window', 'sliding-window-log', 'sliding-window-counter'
		 * (these take limit and window), 'token-bucket' (capacity, refill-rate,
		 * refill-period), 'leaky-bucket' (capacity, drain-rate, drain-period) or
		 * 'concurrency' (limit: requests in flight at once, whatever their cost).
		 */
		private @Nullable String algorithm;

		/**
		 * Units allowed per window, for the window algorithms; requests in flight at
		 * once, for concurrency.
		 */
		private @Nullable Long limit;

		/**
		 * Length of the window, for the window algorithms.
		 */
		private @Nullable Duration window;

		/**
		 * Size of the bucket: the largest burst of a token bucket, the queue size of a
		 * leaky bucket.
		 */
		private @Nullable Long capacity;

		/**
		 * Tokens added per refill-period, for a token bucket; may be fractional.
		 * Refill is continuous.
		 */
		private @Nullable Double refillRate;

		/**
		 * Period over which refill-rate tokens are added, for a token bucket. Defaults
		 * to 1s.
		 */
		private @Nullable Duration refillPeriod;

		/**
		 * Units drained per drain-period, for a leaky bucket; may be fractional. Drain
		 * is continuous.
		 */
		private @Nullable Double drainRate;

		/**
		 * Period over which drain-rate units drain, for a leaky bucket. Defaults to 1s.
		 */
		private @Nullable Duration drainPeriod;

		/**
		 * Shaping, for a leaky or token bucket: requests the bucket cannot admit at once
		 * are held and forwarded at its rate rather than rejected. Off unless set.
		 */
		private @Nullable Shaping shaping;

		/**
		 * Calendar period the limit counts in, in place of window, for fixed-window and
		 * sliding-window-counter: 'day', 'week' (Monday 00:00 to Monday 00:00, as ISO
		 * 8601), 'month' or 'year', each starting at 00:00 local time in zone. A monthly
		 * quota resets at 00:00 on the 1st.
		 */
		private @Nullable String calendar;

		/**
		 * Time zone of calendar, as an IANA time-zone id ('Europe/Paris'). Defaults to
		 * UTC.
		 */
		private @Nullable String zone;

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

		public @Nullable String getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(@Nullable String algorithm) {
			this.algorithm = algorithm;
		}

		public @Nullable Long getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable Long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getWindow() {
			return this.window;
		}

		public void setWindow(@Nullable Duration window) {
			this.window = window;
		}

		public @Nullable Long getCapacity() {
			return this.capacity;
		}

		public void setCapacity(@Nullable Long capacity) {
			this.capacity = capacity;
		}

		public @Nullable Double getRefillRate() {
			return this.refillRate;
		}

		public void setRefillRate(@Nullable Double refillRate) {
			this.refillRate = refillRate;
		}

		public @Nullable Duration getRefillPeriod() {
			return this.refillPeriod;
		}

		public void setRefillPeriod(@Nullable Duration refillPeriod) {
			this.refillPeriod = refillPeriod;
		}

		public @Nullable Double getDrainRate() {
			return this.drainRate;
		}

		public void setDrainRate(@Nullable Double drainRate) {
			this.drainRate = drainRate;
		}

		public @Nullable Duration getDrainPeriod() {
			return this.drainPeriod;
		}

		public void setDrainPeriod(@Nullable Duration drainPeriod) {
			this.drainPeriod = drainPeriod;
		}

		public @Nullable Shaping getShaping() {
			return this.shaping;
		}

		public void setShaping(@Nullable Shaping shaping) {
			this.shaping = shaping;
		}

		public @Nullable String getCalendar() {
			return this.calendar;
		}

		public void setCalendar(@Nullable String calendar) {
			this.calendar = calendar;
		}

		public @Nullable String getZone() {
			return this.zone;
		}

		public void setZone(@Nullable String zone) {
			this.zone = zone;
		}

	}

	/**
	 * How a limit shapes: holds a request until the bucket would admit it, when that is
	 * within max-delay, instead of rejecting it.
	 */
	public static class Shaping {

		/**
		 * Longest a request may be held; a request that would wait longer is rejected at
		 * once, with Retry-After. Required.
		 */
		private @Nullable Duration maxDelay;

		/**
		 * Units of a leaky bucket's queue that pass at once before the rest are spaced at
		 * the drain rate (nginx's delay=N is N + 1). Defaults to 1: every request behind
		 * the first is spaced.
		 */
		private @Nullable Long delayAfter;

		public @Nullable Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(@Nullable Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public @Nullable Long getDelayAfter() {
			return this.delayAfter;
		}

		public void setDelayAfter(@Nullable Long delayAfter) {
			this.delayAfter = delayAfter;
		}

	}

	/**
	 * This node's bounds on requests held by shaping limits.
	 */
	public static class NodeShaping {

		/**
		 * Most requests this node holds at once, across all routes. A request a limit
		 * would hold beyond it is answered 503 with Retry-After, its place given back.
		 */
		private int maxHeldRequests = 10_000;

		public int getMaxHeldRequests() {
			return this.maxHeldRequests;
		}

		public void setMaxHeldRequests(int maxHeldRequests) {
			this.maxHeldRequests = maxHeldRequests;
		}

	}

	/**
	 * The problem body of a rejection (429).
	 */
	public static class Problem {

		/**
		 * Problem type URI of every rejection: an absolute URI. Defaults to the
		 * quota-exceeded type that draft-ietf-httpapi-ratelimit-headers-11 registers
		 * with IANA.
		 */
		private String type = "https://iana.org/assignments/http-problem-types#quota-exceeded";

		/**
		 * Locale in which the detail sentence of each limit is looked up in the
		 * application's MessageSource (codes ratelimit.detail.*), once at start-up.
		 * Defaults to the messages' base file, such as messages.properties.
		 */
		private Locale locale;

		public String getType() {
			return this.type;
		}

		public void setType(String type) {
			this.type = type;
		}

		public Locale getLocale() {
			return this.locale;
		}

		public void setLocale(Locale locale) {
			this.locale = locale;
		}

	}

	/**
	 * In-memory (Caffeine) store settings.
	 */
	public static class Caffeine {

		/**
		 * Maximum number of buckets held in memory; the least recently used are evicted
		 * beyond it.
		 */
		private long maximumKeys = 1_000_000;

		public long getMaximumKeys() {
			return this.maximumKeys;
		}

		public void setMaximumKeys(long maximumKeys) {
			this.maximumKeys = maximumKeys;
		}

	}

	/**
	 * Rate limiting of a plain Spring WebFlux application, without Spring Cloud Gateway.
	 */
	public static class Web {

		/**
		 * Routes limited by a policy, tried in order: the first whose paths and methods
		 * match a request enforces its policy; a request no route matches passes
		 * untouched. Setting any route turns the web filter on.
		 */
		private List<WebRoute> routes = new ArrayList<>();

		/**
		 * Order of the web filter among the application's web filters. After Spring
		 * Security's (-100) by default, so that principal keys and token claims see the
		 * authenticated request.
		 */
		private int order = 0;

		public List<WebRoute> getRoutes() {
			return this.routes;
		}

		public void setRoutes(List<WebRoute> routes) {
			this.routes = routes;
		}

		public int getOrder() {
			return this.order;
		}

		public void setOrder(int order) {
			this.order = order;
		}

	}

	/**
	 * One route of a plain WebFlux application and the policies that limit it.
	 */
	public static class WebRoute {

		/**
		 * Id of the route in metrics and as the key of 'key: route'. Defaults to the path
		 * patterns, joined by commas.
		 */
		private String id;

		/**
		 * Path patterns in Spring's PathPattern syntax, such as '/api/orders/**' or
		 * '/users/{id}', matched against the path within the application's context
		 * path; a request must match one.
		 */
		private List<String> paths = new ArrayList<>();

		/**
		 * HTTP methods a request must have, in upper case, such as GET or POST. Any
		 * method when empty.
		 */
		private List<String> methods = new ArrayList<>();

		/**
		 * Id of the policy under 'ratelimit.policies' that limits the route. Several ids,
		 * separated by commas, are judged together, as 'policies' lists them.
		 */
		private String policy;

		public String getId() {
			return this.id;
		}

		public void setId(String id) {
			this.id = id;
		}

		public List<String> getPaths() {
			return this.paths;
		}

		public void setPaths(List<String> paths) {
			this.paths = paths;
		}

		public List<String> getMethods() {
			return this.methods;
		}

		public void setMethods(List<String> methods) {
			this.methods = methods;
		}

		public String getPolicy() {
			return this.policy;
		}

		public void setPolicy(String policy) {
			this.policy = policy;
		}

		/**
		 * Ids of the policies under 'ratelimit.policies' that limit the route together,
		 * all or nothing, decided in this order: a request one refuses takes nothing from
		 * the others. Instead of 'policy'.
		 */
		private List<String> policies = new ArrayList<>();

		public List<String> getPolicies() {
			return this.policies;
		}

		public void setPolicies(List<String> policies) {
			this.policies = policies;
		}

	}

}
