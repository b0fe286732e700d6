package dev.ratelimit.client;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;

/**
 * What the servers a client talks to have said about its room: per host, and per policy
 * when the server names it, the instant until which the server said there is none. One
 * per client (or shared by clients that share a quota); safe for concurrent use.
 * <p>
 * A response says there is no room when a limit's remaining is 0: a draft-11
 * {@code RateLimit} item with {@code r=0} holds its policy for {@code t}
 * (draft-ietf-httpapi-ratelimit-headers-11 section 4.1.2), draft-06's
 * {@code RateLimit-Remaining: 0} holds the host for {@code RateLimit-Reset}
 * (draft-ietf-httpapi-ratelimit-headers-06 section 3.4); a remaining above 0 releases
 * that policy (or draft-06's limit) again. A {@code 429} with {@code Retry-After} holds
 * the whole host for it, and its effective windows are then not read: both drafts have
 * {@code Retry-After} take precedence (draft-11 section 7, draft-06 section 5). A limit
 * without a reset (a limit of requests in flight) tells no instant, and holds nothing.
 * <p>
 * A host's hold is its longest: a request is not told which policies will judge it, so
 * any of the host's may be the one that refuses it.
 */
public final class RateLimitState {

	private final MonotonicClock clock;

	private final ConcurrentMap<String, HostHolds> hosts = new ConcurrentHashMap<>();

	/**
	 * A state timed by the system's monotonic clock.
	 */
	public RateLimitState() {
		this(MonotonicClock.SYSTEM);
	}

	/**
	 * @param clock the clock the holds are timed by; its epoch also dates a
	 * {@code Retry-After} given as an HTTP-date when the response has no {@code Date}
	 */
	public RateLimitState(MonotonicClock clock) {
		if (clock == null) {
			throw new IllegalArgumentException("clock must not be null");
		}
		this.clock = clock;
	}

	/**
	 * The host a request's quota is kept under: its host, lower-cased, and port, the
	 * scheme's default when the URI has none ({@code api.example:443}).
	 */
	public static String hostOf(URI uri) {
		String host = (uri.getHost() != null) ? uri.getHost().toLowerCase(Locale.ROOT) : "";
		int port = uri.getPort();
		if (port < 0) {
			port = "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
		}
		return host + ":" + port;
	}

	/**
	 * How long before the server said there is room again on {@code host}: the longest
	 * of its holds still running, {@link Duration#ZERO} when none is.
	 */
	public Duration holdFor(String host) {
		HostHolds holds = this.hosts.get(host);
		if (holds == null) {
			return Duration.ZERO;
		}
		long now = this.clock.nanoTime();
		long until = holds.until(now);
		return (until > now) ? Duration.ofNanos(until - now) : Duration.ZERO;
	}

	/**
	 * Record what a response from {@code host} said.
	 * @param status the response's status code
	 * @return how long the response asked the client to wait before its next request:
	 * the {@code Retry-After} of a {@code 429}, else the longest reset of a limit with
	 * nothing remaining; {@code null} when it asked for no wait
	 */
	public @Nullable Duration observe(String host, int status, RateLimitFields fields) {
		long now = this.clock.nanoTime();
		RetryAfter retryAfter = fields.retryAfter();
		if (status == 429 && retryAfter != null) {
			Duration wait = retryAfter.delayFrom(Instant.EPOCH.plusNanos(now));
			holds(host).retryAfterUntil = until(now, wait);
			return wait;
		}
		Duration asked = null;
		for (ServiceLimit limit : fields.serviceLimits()) {
			if (limit.remaining() > 0) {
				HostHolds holds = this.hosts.get(host);
				if (holds != null) {
					holds.byPolicy.remove(limit.policy());
				}
			}
			else if (limit.reset() != null) {
				holds(host).byPolicy.put(limit.policy(), until(now, limit.reset()));
				asked = longer(asked, limit.reset());
			}
		}
		if (fields.remaining().isPresent()) {
			Duration reset = fields.reset();
			if (fields.remaining().getAsLong() > 0) {
				HostHolds holds = this.hosts.get(host);
				if (holds != null) {
					holds.unnamedUntil = Long.MIN_VALUE;
				}
			}
			else if (reset != null) {
				holds(host).unnamedUntil = until(now, reset);
				asked = longer(asked, reset);
			}
		}
		return asked;
	}

	private HostHolds holds(String host) {
		return this.hosts.computeIfAbsent(host, (key) -> new HostHolds());
	}

	private static Duration longer(@Nullable Duration current, Duration candidate) {
		return (current == null || candidate.compareTo(current) > 0) ? candidate : current;
	}

	/**
	 * {@code now + wait} in the clock's nanoseconds, at most {@link Long#MAX_VALUE}.
	 */
	private static long until(long now, Duration wait) {
		try {
			return Math.addExact(now, wait.toNanos());
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

	/**
	 * One host's holds, each the clock's nanoseconds until which it runs. The last
	 * response recorded wins: two answered at once cannot be ordered anyway.
	 */
	private static final class HostHolds {

		volatile long retryAfterUntil = Long.MIN_VALUE;

		volatile long unnamedUntil = Long.MIN_VALUE;

		final ConcurrentMap<String, Long> byPolicy = new ConcurrentHashMap<>();

		long until(long now) {
			long until = Math.max(this.retryAfterUntil, this.unnamedUntil);
			for (Map.Entry<String, Long> hold : this.byPolicy.entrySet()) {
				long policyUntil = hold.getValue();
				if (policyUntil <= now) {
					this.byPolicy.remove(hold.getKey(), policyUntil);
				}
				until = Math.max(until, policyUntil);
			}
			return until;
		}

	}

}
