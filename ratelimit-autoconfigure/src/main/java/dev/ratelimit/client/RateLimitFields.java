package dev.ratelimit.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;

import dev.ratelimit.client.StructuredFieldList.Malformed;
import dev.ratelimit.client.StructuredFieldList.Member;
import org.jspecify.annotations.Nullable;

/**
 * What one response's rate limit fields say, read without Spring: draft-11's
 * {@code RateLimit} and {@code RateLimit-Policy}
 * (draft-ietf-httpapi-ratelimit-headers-11), draft-06's {@code RateLimit-Limit},
 * {@code RateLimit-Remaining}, {@code RateLimit-Reset} and {@code RateLimit-Policy}
 * (draft-ietf-httpapi-ratelimit-headers-06), and {@code Retry-After} (RFC 9110 section
 * 10.2.3).
 * <p>
 * Each field is read on its own, and one that is malformed is ignored whole, as both
 * drafts say (draft-11 section 7 "MUST be ignored", draft-06 section 5 "MAY be
 * ignored"); a bad server header never throws. The two {@code RateLimit-Policy} forms
 * share a name and are told apart by their items: Strings in draft-11 (section 3),
 * Integers in draft-06 (section 2.1). Immutable.
 */
public final class RateLimitFields {

	static final String RATE_LIMIT = "RateLimit";

	static final String POLICY = "RateLimit-Policy";

	static final String LIMIT = "RateLimit-Limit";

	static final String REMAINING = "RateLimit-Remaining";

	static final String RESET = "RateLimit-Reset";

	static final String RETRY_AFTER = "Retry-After";

	static final String DATE = "Date";

	/**
	 * A response without any rate limit field.
	 */
	public static final RateLimitFields NONE = new RateLimitFields(List.of(), List.of(), null, null, null, null);

	private final List<ServiceLimit> serviceLimits;

	private final List<QuotaPolicy> quotaPolicies;

	private final @Nullable Long limit;

	private final @Nullable Long remaining;

	private final @Nullable Duration reset;

	private final @Nullable RetryAfter retryAfter;

	private RateLimitFields(List<ServiceLimit> serviceLimits, List<QuotaPolicy> quotaPolicies, @Nullable Long limit,
			@Nullable Long remaining, @Nullable Duration reset, @Nullable RetryAfter retryAfter) {
		this.serviceLimits = List.copyOf(serviceLimits);
		this.quotaPolicies = List.copyOf(quotaPolicies);
		this.limit = limit;
		this.remaining = remaining;
		this.reset = reset;
		this.retryAfter = retryAfter;
	}

	/**
	 * Read a response's fields.
	 * @param fieldLines the lines of a field by its name, {@code null} or empty when the
	 * response has none; names are looked up as this class spells them, so the lookup
	 * must ignore case, as HTTP field names do (RFC 9110 section 5.1): Spring's
	 * {@code HttpHeaders::get} does
	 */
	public static RateLimitFields parse(Function<String, @Nullable List<String>> fieldLines) {
		return new RateLimitFields(serviceLimits(present(fieldLines.apply(RATE_LIMIT))),
				quotaPolicies(present(fieldLines.apply(POLICY))), count(present(fieldLines.apply(LIMIT))),
				count(present(fieldLines.apply(REMAINING))), reset(present(fieldLines.apply(RESET))),
				RetryAfter.parse(present(fieldLines.apply(RETRY_AFTER)), present(fieldLines.apply(DATE))));
	}

	/**
	 * The draft-11 {@code RateLimit} items, in the field's order (our server lists the
	 * least remaining first); empty when the field is absent or malformed.
	 */
	public List<ServiceLimit> serviceLimits() {
		return this.serviceLimits;
	}

	/**
	 * The {@code RateLimit-Policy} items of either draft, in the field's order; empty
	 * when the field is absent or malformed.
	 */
	public List<QuotaPolicy> quotaPolicies() {
		return this.quotaPolicies;
	}

	/**
	 * draft-06 {@code RateLimit-Limit} (section 3.1): the quota of the limit closest to
	 * running out.
	 */
	public OptionalLong limit() {
		return (this.limit != null) ? OptionalLong.of(this.limit) : OptionalLong.empty();
	}

	/**
	 * draft-06 {@code RateLimit-Remaining} (section 3.3).
	 */
	public OptionalLong remaining() {
		return (this.remaining != null) ? OptionalLong.of(this.remaining) : OptionalLong.empty();
	}

	/**
	 * draft-06 {@code RateLimit-Reset} (section 3.4): the time until the quota resets, or
	 * {@code null}.
	 */
	public @Nullable Duration reset() {
		return this.reset;
	}

	/**
	 * {@code Retry-After}, or {@code null} when absent or malformed.
	 */
	public @Nullable RetryAfter retryAfter() {
		return this.retryAfter;
	}

	@Override
	public String toString() {
		return "RateLimitFields[serviceLimits=" + this.serviceLimits + ", quotaPolicies=" + this.quotaPolicies
				+ ", limit=" + this.limit + ", remaining=" + this.remaining + ", reset=" + this.reset
				+ ", retryAfter=" + this.retryAfter + "]";
	}

	private static @Nullable List<String> present(@Nullable List<String> lines) {
		return (lines == null || lines.isEmpty()) ? null : lines;
	}

	/**
	 * draft-11 section 4: a List of service limit Items, each naming its policy
	 * (section 4.1; a String, as policies are named in section 3), with the REQUIRED
	 * {@code r} and the OPTIONAL {@code t}, both non-negative Integers (sections 4.1.1 and
	 * 4.1.2). Other parameters are comments (section 4.1).
	 */
	private static List<ServiceLimit> serviceLimits(@Nullable List<String> lines) {
		if (lines == null) {
			return List.of();
		}
		try {
			List<ServiceLimit> limits = new ArrayList<>();
			for (Member item : StructuredFieldList.parseList(lines)) {
				if (!(item.value() instanceof String name)) {
					throw new Malformed("a service limit names its policy with a String");
				}
				Long remaining = nonNegative(item.parameters(), "r");
				if (remaining == null) {
					throw new Malformed("a service limit has an r");
				}
				Long reset = nonNegative(item.parameters(), "t");
				limits.add(new ServiceLimit(name, remaining, (reset != null) ? Duration.ofSeconds(reset) : null));
			}
			return limits;
		}
		catch (Malformed ex) {
			return List.of();
		}
	}

	/**
	 * A List of Strings is draft-11's (section 3.1: the REQUIRED {@code q}, a
	 * non-negative Integer, 3.1.1; {@code qu} a String, 3.1.2; {@code w} a positive
	 * Integer, 3.1.3), a List of Integers draft-06's (section 3.2, of quota policies of
	 * section 2.1: a non-negative Integer, 2.3, and the REQUIRED {@code w}, a non-negative
	 * Integer, 2.2).
	 */
	private static List<QuotaPolicy> quotaPolicies(@Nullable List<String> lines) {
		if (lines == null) {
			return List.of();
		}
		try {
			List<Member> items = StructuredFieldList.parseList(lines);
			boolean draft11 = !items.isEmpty() && items.get(0).value() instanceof String;
			List<QuotaPolicy> policies = new ArrayList<>();
			for (Member item : items) {
				policies.add(draft11 ? draft11Policy(item) : draft06Policy(item));
			}
			return policies;
		}
		catch (Malformed ex) {
			return List.of();
		}
	}

	private static QuotaPolicy draft11Policy(Member item) {
		if (!(item.value() instanceof String name)) {
			throw new Malformed("a draft-11 quota policy is a String");
		}
		Long quota = nonNegative(item.parameters(), "q");
		if (quota == null) {
			throw new Malformed("a draft-11 quota policy has a q");
		}
		Long window = nonNegative(item.parameters(), "w");
		if (window != null && window == 0) {
			throw new Malformed("a draft-11 window is not zero");
		}
		Object unit = item.parameters().get("qu");
		if (unit != null && !(unit instanceof String)) {
			throw new Malformed("a quota unit is a String");
		}
		return new QuotaPolicy(name, quota, (window != null) ? Duration.ofSeconds(window) : null, (String) unit);
	}

	private static QuotaPolicy draft06Policy(Member item) {
		if (!(item.value() instanceof Long quota) || quota < 0) {
			throw new Malformed("a draft-06 quota policy is a non-negative Integer");
		}
		Long window = nonNegative(item.parameters(), "w");
		if (window == null) {
			throw new Malformed("a draft-06 quota policy has a w");
		}
		return new QuotaPolicy(null, quota, Duration.ofSeconds(window), null);
	}

	/**
	 * draft-06 {@code RateLimit-Limit} and {@code RateLimit-Remaining} (sections 3.1 and
	 * 3.3): an Item, a non-negative Integer, parameters not allowed.
	 */
	private static @Nullable Long count(@Nullable List<String> lines) {
		if (lines == null) {
			return null;
		}
		try {
			Member item = StructuredFieldList.parseItem(lines);
			if (item.value() instanceof Long count && count >= 0 && item.parameters().isEmpty()) {
				return count;
			}
			return null;
		}
		catch (Malformed ex) {
			return null;
		}
	}

	/**
	 * draft-06 {@code RateLimit-Reset} (section 3.4): a non-negative Integer of seconds.
	 */
	private static @Nullable Duration reset(@Nullable List<String> lines) {
		if (lines == null) {
			return null;
		}
		try {
			Member item = StructuredFieldList.parseItem(lines);
			if (item.value() instanceof Long seconds && seconds >= 0) {
				return Duration.ofSeconds(seconds);
			}
			return null;
		}
		catch (Malformed ex) {
			return null;
		}
	}

	/**
	 * The parameter, when present a non-negative Integer; {@code null} when absent.
	 * @throws Malformed when present and anything else
	 */
	private static @Nullable Long nonNegative(Map<String, Object> parameters, String key) {
		Object value = parameters.get(key);
		if (value == null) {
			return null;
		}
		if (!(value instanceof Long number) || number < 0) {
			throw new Malformed("parameter " + key + " is a non-negative Integer");
		}
		return number;
	}

}
