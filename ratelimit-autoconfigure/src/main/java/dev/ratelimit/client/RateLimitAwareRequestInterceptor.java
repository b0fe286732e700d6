package dev.ratelimit.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A RestClient (or RestTemplate) interceptor that reads the rate limit headers of every
 * response ({@link RateLimitFields}) into its {@link RateLimitState}, holds a request
 * while its host has said there is no room, until the reset, instead of sending it to be
 * refused, and retries a {@code 429} after its {@code Retry-After}, up to a bound, as
 * {@link RateLimitAwareExchangeFilter} does. The body of a {@code 429} it retries is
 * closed first.
 * <p>
 * It waits by sleeping the calling thread, which is right for a blocking client and
 * wrong on an event loop (a Netty or Reactor thread): there, use the WebClient filter.
 * An interrupt while it waits ends the call with an {@link InterruptedIOException}, the
 * thread's interrupt status kept.
 *
 * <pre class="code">
 * RestClient client = RestClient.builder()
 * 	.requestInterceptor(RateLimitAwareRequestInterceptor.create())
 * 	.build();
 * </pre>
 */
public final class RateLimitAwareRequestInterceptor implements ClientHttpRequestInterceptor {

	private final RetryRules rules;

	private final Pause pause;

	RateLimitAwareRequestInterceptor(RetryRules rules, Pause pause) {
		this.rules = rules;
		this.pause = pause;
	}

	/**
	 * An interceptor with its own state, retrying a {@code 429} at most twice and waiting
	 * at most 30 seconds at a time.
	 */
	public static RateLimitAwareRequestInterceptor create() {
		return builder().build();
	}

	public static Builder builder() {
		return new Builder();
	}

	/**
	 * What this interceptor has learnt of its hosts' room.
	 */
	public RateLimitState state() {
		return this.rules.state();
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		String host = RateLimitState.hostOf(request.getURI());
		for (int retries = 0;; retries++) {
			Duration hold = this.rules.holdBefore(host);
			if (!hold.isZero()) {
				pause(hold);
			}
			ClientHttpResponse response = execution.execute(request, body);
			RateLimitFields fields = RateLimitFields.parse(response.getHeaders()::get);
			if (!this.rules.retry(host, response.getStatusCode().value(), fields, retries)) {
				return response;
			}
			response.close();
		}
	}

	private void pause(Duration hold) throws InterruptedIOException {
		try {
			this.pause.pause(hold);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			InterruptedIOException interrupted = new InterruptedIOException(
					"Interrupted while holding a request for the server's rate limit reset");
			interrupted.initCause(ex);
			throw interrupted;
		}
	}

	/**
	 * How the calling thread waits; tests move a clock instead.
	 */
	@FunctionalInterface
	interface Pause {

		Pause SLEEP = (duration) -> TimeUnit.NANOSECONDS.sleep(duration.toNanos());

		void pause(Duration duration) throws InterruptedException;

	}

	/**
	 * Builds a {@link RateLimitAwareRequestInterceptor}.
	 */
	public static final class Builder {

		private @Nullable RateLimitState state;

		private int maxRetries = RetryRules.DEFAULT_MAX_RETRIES;

		private Duration maxWait = RetryRules.DEFAULT_MAX_WAIT;

		private Builder() {
		}

		/**
		 * The state to read and record in, shared with other clients of the same
		 * quota; by default the interceptor's own.
		 */
		public Builder state(RateLimitState state) {
			if (state == null) {
				throw new IllegalArgumentException("state must not be null");
			}
			this.state = state;
			return this;
		}

		/**
		 * How many times a {@code 429} is sent again at most (default 2; 0 never
		 * retries, and still holds requests while there is no room).
		 */
		public Builder maxRetries(int maxRetries) {
			this.maxRetries = maxRetries;
			return this;
		}

		/**
		 * The longest the interceptor waits at a time, before a request or a retry
		 * (default 30 s): a {@code 429} asking for longer goes back to the caller, and a
		 * longer hold sends the request at once.
		 */
		public Builder maxWait(Duration maxWait) {
			this.maxWait = maxWait;
			return this;
		}

		/**
		 * @throws IllegalArgumentException when {@code maxRetries} or {@code maxWait} is
		 * negative, naming it
		 */
		public RateLimitAwareRequestInterceptor build() {
			RateLimitState state = (this.state != null) ? this.state : new RateLimitState();
			return new RateLimitAwareRequestInterceptor(RetryRules.of(state, this.maxRetries, this.maxWait),
					Pause.SLEEP);
		}

	}

}
