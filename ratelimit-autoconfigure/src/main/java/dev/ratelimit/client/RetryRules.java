package dev.ratelimit.client;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * When a client holds a request and when it retries one, the same for both clients.
 * <p>
 * A request waits for its host's hold ({@link RateLimitState#holdFor}) when that is at
 * most {@code maxWait}; a longer hold sends it at once, since the server may have room
 * before its reset and its answer then reaches the caller at once, rather than after a
 * wait the caller did not allow (draft-06 section 5 lets a client "still probe the
 * server" when the reset is too high; draft-11 section 8.5.1 has clients bound what they
 * accept). A {@code 429} is retried, at most {@code maxRetries} times, when it asked for a
 * wait and the host's hold is then at most {@code maxWait}: without a {@code Retry-After}
 * or a reset it tells nothing of when to come back, and another request at once would be
 * refused again.
 */
final class RetryRules {

	static final int DEFAULT_MAX_RETRIES = 2;

	static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(30);

	private final RateLimitState state;

	private final int maxRetries;

	private final Duration maxWait;

	private RetryRules(RateLimitState state, int maxRetries, Duration maxWait) {
		this.state = state;
		this.maxRetries = maxRetries;
		this.maxWait = maxWait;
	}

	static RetryRules of(RateLimitState state, int maxRetries, @Nullable Duration maxWait) {
		if (maxRetries < 0) {
			throw new IllegalArgumentException("maxRetries must be 0 or more, was " + maxRetries);
		}
		if (maxWait == null) {
			throw new IllegalArgumentException("maxWait must not be null");
		}
		if (maxWait.isNegative()) {
			throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait);
		}
		return new RetryRules(state, maxRetries, maxWait);
	}

	RateLimitState state() {
		return this.state;
	}

	/**
	 * How long to hold a request to {@code host} before sending it.
	 */
	Duration holdBefore(String host) {
		Duration hold = this.state.holdFor(host);
		return (hold.compareTo(this.maxWait) <= 0) ? hold : Duration.ZERO;
	}

	/**
	 * Record a response and say whether to send its request again.
	 * @param retries how many times the request was sent again already
	 * @return whether to retry; the retry then waits {@link #holdBefore}
	 */
	boolean retry(String host, int status, RateLimitFields fields, int retries) {
		Duration asked = this.state.observe(host, status, fields);
		return status == 429 && asked != null && retries < this.maxRetries
				&& this.state.holdFor(host).compareTo(this.maxWait) <= 0;
	}

}
