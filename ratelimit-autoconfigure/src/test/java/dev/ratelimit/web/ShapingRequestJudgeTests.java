package dev.ratelimit.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.web.ShapingFixture.Asked;
import dev.ratelimit.web.ShapingFixture.Sent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The judge holding what a shaping limit delays: on a timer (Reactor's, on virtual
 * time here), with the headers written when it is judged, within this node's places
 * for held requests, giving the place back when a held request is cancelled; a shadow
 * policy never holds. A leaky bucket of 5 draining 2 per second, at most 3 s of hold.
 */
class ShapingRequestJudgeTests {

	private static final long MILLI = 1_000_000L;

	private static final String CLIENT = "198.51.100.4";

	private static final Tier QUEUE = new Tier("anonymous",
			List.of(new LeakyBucket(5, 2, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(3)))));

	private final VirtualTimeScheduler time = VirtualTimeScheduler.getOrSet();

	@AfterEach
	void realTime() {
		VirtualTimeScheduler.reset();
	}

	@Test
	void aDelayedRequestIsHeldWithItsHeadersWrittenThenForwardedWhenItsDelayHasPassed() {
		ShapingFixture fixture = fixture(QUEUE, false, 10_000);
		RequestJudge judge = fixture.filterJudge();
		Sent first = fixture.send(judge, CLIENT);
		assertThat(first.forwardedAt).isZero();
		Sent second = fixture.send(judge, CLIENT);
		assertThat(second.forwarded()).isFalse();
		assertThat(second.completed).isFalse();
		assertThat(fixture.held.held()).isEqualTo(1);
		assertThat(fixture.outcomes).containsExactly(Outcome.ALLOWED, Outcome.DELAYED);
		assertThat(fixture.delays).containsExactly(500 * MILLI);
		// Written when judged: the client's quota as it stands with this request queued.
		assertThat(second.headers().getFirst("RateLimit-Remaining")).isEqualTo("3");
		assertThat(second.headers().getFirst(HttpHeaders.RETRY_AFTER)).isNull();
		fixture.advance(Duration.ofMillis(499));
		assertThat(second.forwarded()).isFalse();
		fixture.advance(Duration.ofMillis(1));
		assertThat(second.forwardedAt).isEqualTo(500 * MILLI);
		assertThat(second.completed).isTrue();
		assertThat(fixture.held.held()).isZero();
		assertThat(fixture.store.givenBack).hasValue(0);
		// Two queued, one drained meanwhile.
		assertThat(fixture.state(CLIENT)).containsEntry("level", 1.0);
	}

	@Test
	void aBurstIsForwardedAtTheDrainRateAndWhatDoesNotFitIsRefusedAtOnce() {
		ShapingFixture fixture = fixture(QUEUE, false, 10_000);
		RequestJudge judge = fixture.filterJudge();
		List<Sent> burst = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			burst.add(fixture.send(judge, CLIENT));
		}
		List<Sent> refused = burst.subList(5, 8);
		for (Sent sent : refused) {
			assertThat(sent.completed).isTrue();
			assertThat(sent.forwarded()).isFalse();
			assertThat(sent.exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
			// Until one place has drained: 0.5 s, in whole seconds.
			assertThat(sent.headers().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
		}
		assertThat(fixture.held.held()).isEqualTo(4);
		fixture.advance(Duration.ofSeconds(3));
		assertThat(burst.subList(0, 5)).extracting((sent) -> sent.forwardedAt)
			.containsExactly(0L, 500 * MILLI, 1000 * MILLI, 1500 * MILLI, 2000 * MILLI);
		assertThat(fixture.outcomes).containsExactly(Outcome.ALLOWED, Outcome.DELAYED, Outcome.DELAYED,
				Outcome.DELAYED, Outcome.DELAYED, Outcome.REJECTED, Outcome.REJECTED, Outcome.REJECTED);
		assertThat(fixture.held.held()).isZero();
	}

	@Test
	void aShadowPolicyForwardsAtOnceAndTellsListenersWhatItWouldHaveHeld() {
		ShapingFixture fixture = fixture(QUEUE, true, 10_000);
		RequestJudge judge = fixture.filterJudge();
		fixture.send(judge, CLIENT);
		Sent second = fixture.send(judge, CLIENT);
		assertThat(second.forwardedAt).isZero();
		assertThat(second.completed).isTrue();
		assertThat(fixture.held.held()).isZero();
		assertThat(fixture.outcomes).containsExactly(Outcome.ALLOWED, Outcome.SHADOW_DELAYED);
		assertThat(fixture.delays).containsExactly(500 * MILLI);
		// Counted as if held, so that the shadow reports what enforcing would do.
		assertThat(fixture.state(CLIENT)).containsEntry("level", 2.0);
	}

	@Test
	void aRequestBeyondThisNodesPlacesIsAnswered503AndItsPlaceGivenBack() {
		ShapingFixture fixture = fixture(QUEUE, false, 1);
		RequestJudge judge = fixture.filterJudge();
		fixture.send(judge, CLIENT);
		Sent held = fixture.send(judge, CLIENT);
		Sent beyond = fixture.send(judge, CLIENT);
		assertThat(beyond.forwarded()).isFalse();
		assertThat(beyond.completed).isTrue();
		assertThat(beyond.exchange.getResponse().getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
		// When it would have been released: 1 s.
		assertThat(beyond.headers().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
		assertThat(beyond.headers().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
		String body = beyond.exchange.getResponse().getBodyAsString().block();
		assertThat((Integer) JsonPath.read(body, "$.status")).isEqualTo(503);
		assertThat((String) JsonPath.read(body, "$.detail"))
			.isEqualTo("This gateway already holds as many requests as it may (1)");
		assertThat(fixture.outcomes).containsExactly(Outcome.ALLOWED, Outcome.DELAYED, Outcome.HOLDS_FULL);
		assertThat(fixture.store.givenBack).hasValue(1);
		assertThat(fixture.state(CLIENT)).containsEntry("level", 2.0);
		assertThat(fixture.held.held()).isEqualTo(1);
		fixture.advance(Duration.ofMillis(500));
		assertThat(held.forwarded()).isTrue();
		// Its place released, this node holds the next request, in the slot the refused
		// one gave back.
		Sent next = fixture.send(judge, CLIENT);
		assertThat(fixture.held.held()).isEqualTo(1);
		fixture.advance(Duration.ofMillis(499));
		assertThat(next.forwarded()).isFalse();
		fixture.advance(Duration.ofMillis(1));
		assertThat(next.forwardedAt).isEqualTo(1000 * MILLI);
	}

	@Test
	void aHeldRequestCancelledGivesItsPlaceBackOnceAndIsNeverForwarded() {
		ShapingFixture fixture = fixture(QUEUE, false, 10_000);
		RequestJudge judge = fixture.filterJudge();
		fixture.send(judge, CLIENT);
		Sent ahead = fixture.send(judge, CLIENT);
		Sent cancelled = fixture.send(judge, CLIENT);
		fixture.advance(Duration.ofMillis(200));
		assertThat(fixture.state(CLIENT)).containsEntry("level", 2.6);
		cancelled.subscription.dispose();
		cancelled.subscription.dispose();
		assertThat(fixture.store.givenBack).hasValue(1);
		assertThat(fixture.held.held()).isEqualTo(1);
		assertThat(fixture.state(CLIENT)).containsEntry("level", 1.6);
		// Released where the cancelled one would have been, at 1 s, not behind it at 1.5 s.
		Sent later = fixture.send(judge, CLIENT);
		assertThat(fixture.delays).containsExactly(500 * MILLI, 1000 * MILLI, 800 * MILLI);
		fixture.advance(Duration.ofSeconds(5));
		assertThat(cancelled.forwarded()).isFalse();
		assertThat(cancelled.completed).isFalse();
		assertThat(ahead.forwardedAt).isEqualTo(500 * MILLI);
		assertThat(later.forwardedAt).isEqualTo(1000 * MILLI);
		assertThat(fixture.store.givenBack).hasValue(1);
		assertThat(fixture.held.held()).isZero();
	}

	@Test
	void aCancelledReservationOfATokenBucketGivesItsTokenBack() {
		Tier reserving = new Tier("anonymous",
				List.of(new TokenBucket(1, 1, Duration.ofSeconds(1), new Shaping(Duration.ofSeconds(5)))));
		ShapingFixture fixture = fixture(reserving, false, 10_000);
		RequestJudge judge = fixture.filterJudge();
		fixture.send(judge, CLIENT);
		Sent ahead = fixture.send(judge, CLIENT);
		Sent cancelled = fixture.send(judge, CLIENT);
		assertThat(fixture.state(CLIENT)).containsEntry("tokens", -2.0);
		cancelled.subscription.dispose();
		assertThat(fixture.state(CLIENT)).containsEntry("tokens", -1.0);
		assertThat(fixture.held.held()).isEqualTo(1);
		Sent later = fixture.send(judge, CLIENT);
		assertThat(fixture.delays).containsExactly(1000 * MILLI, 2000 * MILLI, 2000 * MILLI);
		fixture.advance(Duration.ofSeconds(5));
		assertThat(cancelled.forwarded()).isFalse();
		assertThat(ahead.forwardedAt).isEqualTo(1000 * MILLI);
		assertThat(later.forwardedAt).isEqualTo(2000 * MILLI);
		assertThat(fixture.store.givenBack).hasValue(1);
	}

	@Test
	void aRateLimiterBeansAnswerIsHeldAsARequestIs() {
		ShapingFixture fixture = fixture(QUEUE, false, 10_000);
		RequestJudge judge = fixture.keysJudge();
		Asked first = fixture.ask(judge, "tenant-a");
		assertThat(first.answeredAt).isZero();
		Asked second = fixture.ask(judge, "tenant-a");
		assertThat(second.answeredAt).isNull();
		assertThat(fixture.held.held()).isEqualTo(1);
		assertThat(fixture.outcomes).containsExactly(Outcome.ALLOWED, Outcome.DELAYED);
		fixture.advance(Duration.ofMillis(499));
		assertThat(second.answeredAt).isNull();
		fixture.advance(Duration.ofMillis(1));
		assertThat(second.answeredAt).isEqualTo(500 * MILLI);
		assertThat(second.allowed).isTrue();
		assertThat(second.headers.getFirst("RateLimit-Remaining")).isEqualTo("3");
		assertThat(fixture.held.held()).isZero();
	}

	@Test
	void aRateLimiterBeansHeldAnswerCancelledGivesItsPlaceBack() {
		ShapingFixture fixture = fixture(QUEUE, false, 10_000);
		RequestJudge judge = fixture.keysJudge();
		fixture.ask(judge, "tenant-a");
		Asked cancelled = fixture.ask(judge, "tenant-a");
		cancelled.subscription.dispose();
		assertThat(fixture.store.givenBack).hasValue(1);
		assertThat(fixture.held.held()).isZero();
		assertThat(fixture.state("tenant-a")).containsEntry("level", 1.0);
		fixture.advance(Duration.ofSeconds(5));
		assertThat(cancelled.answeredAt).isNull();
	}

	@Test
	void aRateLimiterBeanBeyondThisNodesPlacesRefusesWithRetryAfterAndGivesThePlaceBack() {
		ShapingFixture fixture = fixture(QUEUE, false, 1);
		RequestJudge judge = fixture.keysJudge();
		fixture.ask(judge, "tenant-a");
		fixture.ask(judge, "tenant-a");
		Asked beyond = fixture.ask(judge, "tenant-a");
		assertThat(beyond.answeredAt).isZero();
		assertThat(beyond.allowed).isFalse();
		assertThat(beyond.headers.getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
		assertThat(fixture.outcomes).containsExactly(Outcome.ALLOWED, Outcome.DELAYED, Outcome.HOLDS_FULL);
		assertThat(fixture.store.givenBack).hasValue(1);
		assertThat(fixture.state("tenant-a")).containsEntry("level", 2.0);
	}

	private ShapingFixture fixture(Tier tier, boolean shadow, int maxHeld) {
		return new ShapingFixture(this.time, tier, shadow, 1, maxHeld);
	}

}
