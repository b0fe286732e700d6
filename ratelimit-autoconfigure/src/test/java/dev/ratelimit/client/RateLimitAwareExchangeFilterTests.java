package dev.ratelimit.client;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.ratelimit.support.MonotonicClock;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The filter's waits on virtual time, against an exchange that answers from a script and
 * counts what it was sent.
 */
class RateLimitAwareExchangeFilterTests {

	private static final ClientRequest REQUEST = ClientRequest.create(HttpMethod.GET, URI.create("http://api.example/items"))
		.build();

	/**
	 * The virtual clock, inside {@link StepVerifier#withVirtualTime}: Reactor's parallel
	 * scheduler is the virtual one there.
	 */
	private static final MonotonicClock VIRTUAL = () -> Schedulers.parallel().now(TimeUnit.NANOSECONDS);

	@Test
	void a429IsSentAgainAfterItsRetryAfterAndItsBodyReleased() {
		Script script = new Script(Reply.tooMany("1"), Reply.ok());
		StepVerifier.withVirtualTime(() -> filter(RateLimitAwareExchangeFilter.builder()).filter(REQUEST, script)
			.map((response) -> response.statusCode().value()))
			.expectSubscription()
			.expectNoEvent(Duration.ofMillis(999))
			.then(() -> assertThat(script.exchanges()).isEqualTo(1))
			.thenAwait(Duration.ofMillis(1))
			.expectNext(200)
			.verifyComplete();
		assertThat(script.exchanges()).isEqualTo(2);
		assertThat(script.bodiesRead()).containsExactly(true, false);
	}

	@Test
	void retriesStopAtTheBoundAndTheLast429GoesToTheCallerUnread() {
		Script script = new Script(Reply.tooMany("1"));
		StepVerifier.withVirtualTime(() -> filter(RateLimitAwareExchangeFilter.builder().maxRetries(2))
			.filter(REQUEST, script)
			.map((response) -> response.statusCode().value()))
			.expectSubscription()
			.thenAwait(Duration.ofSeconds(2))
			.expectNext(429)
			.verifyComplete();
		assertThat(script.exchanges()).isEqualTo(3);
		assertThat(script.bodiesRead()).containsExactly(true, true, false);
	}

	@Test
	void noRetriesReturnsTheFirst429() {
		Script script = new Script(Reply.tooMany("1"));
		StepVerifier.withVirtualTime(() -> filter(RateLimitAwareExchangeFilter.builder().maxRetries(0))
			.filter(REQUEST, script)
			.map((response) -> response.statusCode().value()))
			.expectNext(429)
			.verifyComplete();
		assertThat(script.exchanges()).isEqualTo(1);
	}

	@Test
	void a429AskingForLongerThanTheMaxWaitGoesToTheCallerAtOnce() {
		Script script = new Script(Reply.tooMany("60"), Reply.ok());
		StepVerifier.withVirtualTime(() -> filter(RateLimitAwareExchangeFilter.builder().maxWait(Duration.ofSeconds(10)))
			.filter(REQUEST, script)
			.map((response) -> response.statusCode().value()))
			.expectNext(429)
			.verifyComplete();
		assertThat(script.exchanges()).isEqualTo(1);
	}

	@Test
	void a429ThatSaysNothingOfWhenIsNotSentAgain() {
		Script script = new Script(new Reply(429), Reply.ok());
		StepVerifier.withVirtualTime(() -> filter(RateLimitAwareExchangeFilter.builder()).filter(REQUEST, script)
			.map((response) -> response.statusCode().value()))
			.expectNext(429)
			.verifyComplete();
		assertThat(script.exchanges()).isEqualTo(1);
	}

	@Test
	void nothingRemainingHoldsTheNextRequestUntilTheResetInsteadOfSendingIt() {
		Script script = new Script(Reply.ok().with("RateLimit-Remaining", "0").with("RateLimit-Reset", "3"), Reply.ok());
		StepVerifier.withVirtualTime(() -> {
			RateLimitAwareExchangeFilter filter = filter(RateLimitAwareExchangeFilter.builder());
			return filter.filter(REQUEST, script)
				.map((response) -> response.statusCode().value())
				.concatWith(Mono.defer(() -> filter.filter(REQUEST, script)).map((response) -> response.statusCode().value()));
		})
			.expectNext(200)
			.expectNoEvent(Duration.ofMillis(2999))
			.then(() -> assertThat(script.exchanges()).as("held, not sent").isEqualTo(1))
			.thenAwait(Duration.ofMillis(1))
			.expectNext(200)
			.verifyComplete();
		assertThat(script.exchanges()).isEqualTo(2);
	}

	@Test
	void aNamedPolicyWithNothingRemainingHoldsTheHostUntilItsReset() {
		Script script = new Script(Reply.ok().with("RateLimit", "\"orders\";r=0;t=2, \"daily\";r=50;t=600"),
				Reply.ok());
		StepVerifier.withVirtualTime(() -> {
			RateLimitAwareExchangeFilter filter = filter(RateLimitAwareExchangeFilter.builder());
			return filter.filter(REQUEST, script)
				.then(Mono.defer(() -> filter.filter(REQUEST, script)))
				.map((response) -> response.statusCode().value());
		})
			.expectSubscription()
			.expectNoEvent(Duration.ofMillis(1999))
			.thenAwait(Duration.ofMillis(1))
			.expectNext(200)
			.verifyComplete();
	}

	@Test
	void aHoldLongerThanTheMaxWaitSendsTheRequestAtOnce() {
		Script script = new Script(Reply.ok().with("RateLimit-Remaining", "0").with("RateLimit-Reset", "3600"),
				Reply.ok());
		StepVerifier.withVirtualTime(() -> {
			RateLimitAwareExchangeFilter filter = filter(RateLimitAwareExchangeFilter.builder());
			return filter.filter(REQUEST, script).then(Mono.defer(() -> filter.filter(REQUEST, script)));
		}).expectNextCount(1).verifyComplete();
		assertThat(script.exchanges()).isEqualTo(2);
	}

	@Test
	void anotherHostIsNotHeld() {
		Script script = new Script(Reply.ok().with("RateLimit-Remaining", "0").with("RateLimit-Reset", "3"), Reply.ok());
		ClientRequest other = ClientRequest.create(HttpMethod.GET, URI.create("http://other.example/items")).build();
		StepVerifier.withVirtualTime(() -> {
			RateLimitAwareExchangeFilter filter = filter(RateLimitAwareExchangeFilter.builder());
			return filter.filter(REQUEST, script).then(Mono.defer(() -> filter.filter(other, script)));
		}).expectNextCount(1).verifyComplete();
		assertThat(script.exchanges()).isEqualTo(2);
	}

	@Test
	void theBuilderRefusesNegativeBoundsNamingThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimitAwareExchangeFilter.builder().maxRetries(-1).build())
			.withMessage("maxRetries must be 0 or more, was -1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimitAwareExchangeFilter.builder().maxWait(Duration.ofSeconds(-1)).build())
			.withMessage("maxWait must not be negative, was PT-1S");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimitAwareExchangeFilter.builder().maxWait(null).build())
			.withMessage("maxWait must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimitAwareExchangeFilter.builder().state(null).build())
			.withMessage("state must not be null");
	}

	@Test
	void aSharedStateIsTheFiltersState() {
		RateLimitState state = new RateLimitState();
		assertThat(RateLimitAwareExchangeFilter.builder().state(state).build().state()).isSameAs(state);
		assertThat(RateLimitAwareExchangeFilter.create().state()).isNotNull();
	}

	private static RateLimitAwareExchangeFilter filter(RateLimitAwareExchangeFilter.Builder builder) {
		return builder.state(new RateLimitState(VIRTUAL)).build();
	}

	/**
	 * A reply the script gives: a status and headers, with a body whose reading it
	 * records.
	 */
	record Reply(int status, List<String> headers) {

		Reply(int status) {
			this(status, List.of());
		}

		static Reply ok() {
			return new Reply(200);
		}

		static Reply tooMany(String retryAfter) {
			return new Reply(429).with("Retry-After", retryAfter);
		}

		Reply with(String name, String value) {
			List<String> headers = new ArrayList<>(this.headers);
			headers.add(name);
			headers.add(value);
			return new Reply(this.status, headers);
		}

	}

	/**
	 * Answers each exchange with the next reply, the last one again once they run out.
	 */
	static final class Script implements ExchangeFunction {

		private final List<Reply> replies;

		private final AtomicInteger exchanges = new AtomicInteger();

		private final List<Boolean> bodiesRead = new ArrayList<>();

		Script(Reply... replies) {
			this.replies = List.of(replies);
		}

		@Override
		public Mono<ClientResponse> exchange(ClientRequest request) {
			return Mono.defer(() -> Mono.fromSupplier(reply(this.exchanges.getAndIncrement())));
		}

		private Supplier<ClientResponse> reply(int index) {
			return () -> {
				Reply reply = this.replies.get(Math.min(index, this.replies.size() - 1));
				int body = this.bodiesRead.size();
				this.bodiesRead.add(false);
				Flux<DataBuffer> content = Flux
					.defer(() -> Flux.<DataBuffer>just(DefaultDataBufferFactory.sharedInstance.wrap("body".getBytes(StandardCharsets.UTF_8))))
					.doOnComplete(() -> this.bodiesRead.set(body, true));
				ClientResponse.Builder response = ClientResponse.create(HttpStatus.valueOf(reply.status())).body(content);
				for (int i = 0; i < reply.headers().size(); i += 2) {
					response.header(reply.headers().get(i), reply.headers().get(i + 1));
				}
				return response.build();
			};
		}

		int exchanges() {
			return this.exchanges.get();
		}

		List<Boolean> bodiesRead() {
			return this.bodiesRead;
		}

	}

}
