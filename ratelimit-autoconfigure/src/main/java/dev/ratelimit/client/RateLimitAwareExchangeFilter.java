package dev.ratelimit.client;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;

/**
 * A WebClient filter that reads the rate limit headers of every response
 * ({@link RateLimitFields}) into its {@link RateLimitState}, holds a request while its
 * host has said there is no room, until the reset, instead of sending it to be refused,
 * and retries a {@code 429} after its {@code Retry-After}, up to a bound. A hold longer
 * than the longest wait allowed sends the request at once, and a {@code 429} asking for
 * longer, or saying nothing of when to come back, goes to the caller. Waits are
 * {@link Mono#delay} on a Reactor scheduler: no thread blocks, so it is safe on an event
 * loop. The body of a {@code 429} it retries is released first.
 * <p>
 * A retried request is sent again as it was: a request whose body can be written only
 * once cannot be retried.
 *
 * <pre class="code">
 * WebClient client = WebClient.builder()
 * 	.filter(RateLimitAwareExchangeFilter.create())
 * 	.build();
 * </pre>
 */
public final class RateLimitAwareExchangeFilter implements ExchangeFilterFunction {

	private final RetryRules rules;

	private final @Nullable Scheduler scheduler;

	private RateLimitAwareExchangeFilter(RetryRules rules, @Nullable Scheduler scheduler) {
		this.rules = rules;
		this.scheduler = scheduler;
	}

	/**
	 * A filter with its own state, retrying a {@code 429} at most twice and waiting at
	 * most 30 seconds at a time.
	 */
	public static RateLimitAwareExchangeFilter create() {
		return builder().build();
	}

	public static Builder builder() {
		return new Builder();
	}

	/**
	 * What this filter has learnt of its hosts' room.
	 */
	public RateLimitState state() {
		return this.rules.state();
	}

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		return send(request, next, RateLimitState.hostOf(request.url()), 0);
	}

	private Mono<ClientResponse> send(ClientRequest request, ExchangeFunction next, String host, int retries) {
		return Mono.defer(() -> {
			Mono<ClientResponse> exchange = Mono.defer(() -> next.exchange(request))
				.flatMap((response) -> answered(request, next, host, retries, response));
			Duration hold = this.rules.holdBefore(host);
			return hold.isZero() ? exchange : delay(hold).then(exchange);
		});
	}

	private Mono<ClientResponse> answered(ClientRequest request, ExchangeFunction next, String host, int retries,
			ClientResponse response) {
		RateLimitFields fields = RateLimitFields.parse(response.headers().asHttpHeaders()::get);
		if (!this.rules.retry(host, response.statusCode().value(), fields, retries)) {
			return Mono.just(response);
		}
		return response.releaseBody().then(send(request, next, host, retries + 1));
	}

	private Mono<Long> delay(Duration hold) {
		return (this.scheduler != null) ? Mono.delay(hold, this.scheduler) : Mono.delay(hold);
	}

	/**
	 * Builds a {@link RateLimitAwareExchangeFilter}.
	 */
	public static final class Builder {

		private @Nullable RateLimitState state;

		private int maxRetries = RetryRules.DEFAULT_MAX_RETRIES;

		private Duration maxWait = RetryRules.DEFAULT_MAX_WAIT;

		private @Nullable Scheduler scheduler;

		private Builder() {
		}

		/**
		 * The state to read and record in, shared with other clients of the same
		 * quota; by default the filter's own.
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
		 * The longest the filter waits at a time, before a request or a retry (default
		 * 30 s): a {@code 429} asking for longer goes back to the caller, and a longer
		 * hold sends the request at once.
		 */
		public Builder maxWait(Duration maxWait) {
			this.maxWait = maxWait;
			return this;
		}

		/**
		 * The scheduler the waits are timed on; by default Reactor's parallel
		 * scheduler, found when a wait starts.
		 */
		public Builder scheduler(Scheduler scheduler) {
			this.scheduler = scheduler;
			return this;
		}

		/**
		 * @throws IllegalArgumentException when {@code maxRetries} or {@code maxWait} is
		 * negative, naming it
		 */
		public RateLimitAwareExchangeFilter build() {
			RateLimitState state = (this.state != null) ? this.state : new RateLimitState();
			return new RateLimitAwareExchangeFilter(RetryRules.of(state, this.maxRetries, this.maxWait),
					this.scheduler);
		}

	}

}
