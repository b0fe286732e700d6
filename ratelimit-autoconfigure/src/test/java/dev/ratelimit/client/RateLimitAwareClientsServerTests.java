package dev.ratelimit.client;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.client.ScriptedServer.Reply;
import dev.ratelimit.support.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;
import reactor.test.scheduler.VirtualTimeScheduler;

import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Both clients against a real server that counts the requests it receives. The WebClient
 * filter waits on a virtual scheduler that tells the test each wait it is asked for; the
 * RestClient interceptor's waits move a manual clock: no test sleeps, and each wait is
 * seen before time moves past it.
 */
class RateLimitAwareClientsServerTests {

	private final LoopResources clientLoops = LoopResources.create("rate-limit-aware-client", 1, true);

	private final ConnectionProvider connections = ConnectionProvider.create("rate-limit-aware-client", 4);

	private final VirtualTimeScheduler virtualTime = VirtualTimeScheduler.create();

	private final TellingScheduler scheduler = new TellingScheduler(this.virtualTime);

	private ScriptedServer server;

	@AfterEach
	void close() {
		this.server.close();
		this.connections.disposeLater().block();
		this.clientLoops.disposeLater().block();
		this.virtualTime.dispose();
	}

	@Test
	void webClientSendsA429AgainAfterItsRetryAfterAndSucceeds() throws Exception {
		this.server = new ScriptedServer(Reply.tooMany("1"), Reply.ok());
		CompletableFuture<ResponseEntity<String>> call = get(webClient(2));
		assertThat(this.scheduler.nextWait()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.server.received()).isEqualTo(1);
		this.virtualTime.advanceTimeBy(Duration.ofSeconds(1));
		ResponseEntity<String> response = call.get(10, TimeUnit.SECONDS);
		assertThat(response.getStatusCode().value()).isEqualTo(200);
		assertThat(response.getBody()).isEqualTo("done");
		assertThat(this.server.received()).isEqualTo(2);
	}

	@Test
	void webClientStopsRetryingAtTheBound() throws Exception {
		this.server = new ScriptedServer(Reply.tooMany("1"));
		CompletableFuture<ResponseEntity<String>> call = get(webClient(2));
		for (int retry = 1; retry <= 2; retry++) {
			assertThat(this.scheduler.nextWait()).isEqualTo(Duration.ofSeconds(1));
			assertThat(this.server.received()).isEqualTo(retry);
			this.virtualTime.advanceTimeBy(Duration.ofSeconds(1));
		}
		ResponseEntity<String> response = call.get(10, TimeUnit.SECONDS);
		assertThat(response.getStatusCode().value()).isEqualTo(429);
		assertThat(response.getBody()).isEqualTo("refused");
		assertThat(this.server.received()).isEqualTo(3);
		assertThat(this.scheduler.waits()).hasSize(2);
	}

	@Test
	void webClientHoldsTheNextRequestUntilTheResetInsteadOfSendingIt() throws Exception {
		this.server = new ScriptedServer(Reply.lastOne("2"), Reply.ok());
		WebClient client = webClient(2);
		assertThat(get(client).get(10, TimeUnit.SECONDS).getStatusCode().value()).isEqualTo(200);
		CompletableFuture<ResponseEntity<String>> next = get(client);
		assertThat(this.scheduler.nextWait()).isEqualTo(Duration.ofSeconds(2));
		assertThat(this.server.received()).as("held, not sent").isEqualTo(1);
		this.virtualTime.advanceTimeBy(Duration.ofSeconds(2));
		assertThat(next.get(10, TimeUnit.SECONDS).getStatusCode().value()).isEqualTo(200);
		assertThat(this.server.received()).isEqualTo(2);
	}

	@Test
	void restClientSendsA429AgainAfterItsRetryAfterAndSucceeds() {
		this.server = new ScriptedServer(Reply.tooMany("1"), Reply.ok());
		Pauses pauses = new Pauses();
		ResponseEntity<String> response = get(restClient(2, pauses));
		assertThat(response.getStatusCode().value()).isEqualTo(200);
		assertThat(response.getBody()).isEqualTo("done");
		assertThat(pauses.durations).containsExactly(Duration.ofSeconds(1));
		assertThat(pauses.receivedBefore).containsExactly(1);
		assertThat(this.server.received()).isEqualTo(2);
	}

	@Test
	void restClientStopsRetryingAtTheBound() {
		this.server = new ScriptedServer(Reply.tooMany("1"));
		Pauses pauses = new Pauses();
		ResponseEntity<String> response = get(restClient(2, pauses));
		assertThat(response.getStatusCode().value()).isEqualTo(429);
		assertThat(response.getBody()).isEqualTo("refused");
		assertThat(pauses.durations).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
		assertThat(this.server.received()).isEqualTo(3);
	}

	@Test
	void restClientHoldsTheNextRequestUntilTheResetInsteadOfSendingIt() {
		this.server = new ScriptedServer(Reply.lastOne("2"), Reply.ok());
		Pauses pauses = new Pauses();
		RestClient client = restClient(2, pauses);
		assertThat(get(client).getStatusCode().value()).isEqualTo(200);
		assertThat(pauses.durations).isEmpty();
		assertThat(get(client).getStatusCode().value()).isEqualTo(200);
		assertThat(pauses.durations).containsExactly(Duration.ofSeconds(2));
		assertThat(pauses.receivedBefore).as("held, not sent").containsExactly(1);
		assertThat(this.server.received()).isEqualTo(2);
	}

	private WebClient webClient(int maxRetries) {
		HttpClient http = HttpClient.create(this.connections).runOn(this.clientLoops);
		RateLimitState state = new RateLimitState(() -> this.virtualTime.now(TimeUnit.NANOSECONDS));
		return WebClient.builder()
			.baseUrl(this.server.uri())
			.clientConnector(new ReactorClientHttpConnector(http))
			.filter(RateLimitAwareExchangeFilter.builder()
				.state(state)
				.maxRetries(maxRetries)
				.scheduler(this.scheduler)
				.build())
			.build();
	}

	private static CompletableFuture<ResponseEntity<String>> get(WebClient client) {
		return client.get()
			.uri("/limited")
			.exchangeToMono((response) -> response.toEntity(String.class))
			.toFuture();
	}

	private RestClient restClient(int maxRetries, Pauses pauses) {
		RetryRules rules = RetryRules.of(new RateLimitState(pauses.clock), maxRetries, Duration.ofSeconds(30));
		return RestClient.builder()
			.baseUrl(this.server.uri())
			.requestFactory(new JdkClientHttpRequestFactory())
			.requestInterceptor(new RateLimitAwareRequestInterceptor(rules, pauses))
			.build();
	}

	private static ResponseEntity<String> get(RestClient client) {
		return client.get().uri("/limited").retrieve().onStatus((status) -> true, (request, response) -> {
		}).toEntity(String.class);
	}

	/**
	 * The interceptor's waits: each moves the clock instead of sleeping, and records how
	 * many requests the server had received when it began.
	 */
	private final class Pauses implements RateLimitAwareRequestInterceptor.Pause {

		final ManualClock clock = new ManualClock();

		final List<Duration> durations = new CopyOnWriteArrayList<>();

		final List<Integer> receivedBefore = new CopyOnWriteArrayList<>();

		@Override
		public void pause(Duration duration) {
			this.durations.add(duration);
			this.receivedBefore.add(RateLimitAwareClientsServerTests.this.server.received());
			this.clock.advance(duration);
		}

	}

	/**
	 * The virtual scheduler, telling each delayed task's delay as it is scheduled.
	 */
	private static final class TellingScheduler implements Scheduler {

		private final VirtualTimeScheduler delegate;

		private final BlockingQueue<Duration> asked = new LinkedBlockingQueue<>();

		private final List<Duration> waits = new CopyOnWriteArrayList<>();

		TellingScheduler(VirtualTimeScheduler delegate) {
			this.delegate = delegate;
		}

		Duration nextWait() throws InterruptedException {
			Duration wait = this.asked.poll(10, TimeUnit.SECONDS);
			assertThat(wait).as("a wait the filter asked for").isNotNull();
			return wait;
		}

		List<Duration> waits() {
			return this.waits;
		}

		@Override
		public Disposable schedule(Runnable task) {
			return this.delegate.schedule(task);
		}

		@Override
		public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
			Duration wait = Duration.ofNanos(unit.toNanos(delay));
			this.waits.add(wait);
			// scheduled first, so that time the test moves on reaches the task
			Disposable scheduled = this.delegate.schedule(task, delay, unit);
			this.asked.add(wait);
			return scheduled;
		}

		@Override
		public long now(TimeUnit unit) {
			return this.delegate.now(unit);
		}

		@Override
		public Worker createWorker() {
			return this.delegate.createWorker();
		}

	}

}
