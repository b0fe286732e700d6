package dev.ratelimit.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.LimitState;
import dev.ratelimit.algorithm.Shaping;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.web.ShapingFixture.Sent;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * Random requests of one client through a shaping judge, with random cancels of the
 * ones held (their client went away) and of the ones forwarded and still in flight:
 * every admitted request is forwarded or given back, never both; each held one
 * cancelled is given back once, at its cancel, and no other; and the bucket admits at
 * least what the requests not given back leave room for.
 */
class ShapingCancelPropertiesTests {

	private static final String CLIENT = "198.51.100.4";

	private static final String GIVEN_BACK = "held requests given back";

	private static final String CANCELLED_IN_FLIGHT = "forwarded requests cancelled in flight";

	/**
	 * The state's display rounds to thousandths, a model's and the store's each on its
	 * own.
	 */
	private static final double DISPLAYED = 0.0011;

	@Property(tries = 300)
	void everyAdmittedRequestIsForwardedOrGivenBackOnce(@ForAll boolean leaky,
			@ForAll @IntRange(min = 2, max = 8) int capacity, @ForAll @IntRange(min = 1, max = 5) int ratePerSecond,
			@ForAll @IntRange(min = 1, max = 7) int delayAfterSeed,
			@ForAll @IntRange(min = 200, max = 4000) int maxDelayMillis, @ForAll @IntRange(min = 1, max = 2) int cost,
			@ForAll("steps") List<Step> steps) {
		Duration maxDelay = Duration.ofMillis(maxDelayMillis);
		Limit limit = leaky
				? new LeakyBucket(capacity, ratePerSecond, Duration.ofSeconds(1),
						new Shaping(maxDelay, 1 + delayAfterSeed % (capacity - 1)))
				: new TokenBucket(capacity, ratePerSecond, Duration.ofSeconds(1), new Shaping(maxDelay));
		// The window keeps its own count of what was not given back, and keeps the bucket
		// from expiring during the run: a tier is idle for its longest limit's window.
		Tier tier = new Tier("anonymous", List.of(limit, new FixedWindow(10_000, Duration.ofHours(1))));
		VirtualTimeScheduler time = VirtualTimeScheduler.create();
		VirtualTimeScheduler.getOrSet(time);
		try {
			ShapingFixture fixture = new ShapingFixture(time, tier, false, cost, 10_000);
			fixture.upstream = Mono.never();
			new Client(fixture, limit, cost).run(steps, maxDelay);
		}
		finally {
			VirtualTimeScheduler.reset();
		}
	}

	/**
	 * Bursts (half the gaps are none) between pauses, so that requests are held.
	 */
	@Provide
	Arbitrary<List<Step>> steps() {
		Arbitrary<Integer> gaps = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(0)),
				Tuple.of(1, Arbitraries.integers().between(1, 400)));
		return Combinators
			.combine(gaps, Arbitraries.integers().between(0, 9), Arbitraries.integers().between(0, 1000))
			.as((gap, action, which) -> new Step(gap, action >= 6, which))
			.list()
			.ofMinSize(10)
			.ofMaxSize(80);
	}

	/**
	 * One step of the client: after {@code gapMillis}, a request, or a cancel of one of
	 * its open requests ({@code which} of them).
	 */
	record Step(int gapMillis, boolean cancel, int which) {
	}

	/**
	 * The client, its requests, and what the bucket was told of them.
	 */
	private static final class Client {

		private final ShapingFixture fixture;

		private final Limit limit;

		private final long cost;

		private final long start;

		private final String measure;

		private final List<Admitted> admitted = new ArrayList<>();

		private final List<Event> events = new ArrayList<>();

		private int heldCancelled;

		private boolean cancelledInFlight;

		Client(ShapingFixture fixture, Limit limit, long cost) {
			this.fixture = fixture;
			this.limit = limit;
			this.cost = cost;
			this.start = fixture.clock.nanoTime();
			this.measure = (limit instanceof LeakyBucket) ? "level" : "tokens";
		}

		void run(List<Step> steps, Duration maxDelay) {
			RequestJudge judge = this.fixture.filterJudge();
			for (Step step : steps) {
				this.fixture.advance(Duration.ofMillis(step.gapMillis()));
				if (step.cancel()) {
					cancel(step.which());
				}
				else {
					Sent sent = this.fixture.send(judge, CLIENT);
					if (sent.forwarded() || !sent.completed.get()) {
						long now = this.fixture.clock.nanoTime();
						this.admitted.add(new Admitted(sent, now));
						this.events.add(new Event(now, false, now));
					}
				}
				assertAccounted();
			}
			this.fixture.advance(maxDelay.plusSeconds(1));
			for (Admitted request : this.admitted) {
				assertThat(request.sent.forwarded()).as("forwarded unless given back")
					.isNotEqualTo(request.givenBackAt != null);
			}
			assertThat(this.fixture.held.held()).isZero();
			assertAccounted();
			// Not a property that holds for want of cancels.
			Statistics.label(GIVEN_BACK).collect(this.heldCancelled > 0);
			Statistics.label(GIVEN_BACK).coverage((coverage) -> coverage.check(true).percentage((share) -> share > 30));
			Statistics.label(CANCELLED_IN_FLIGHT).collect(this.cancelledInFlight);
			Statistics.label(CANCELLED_IN_FLIGHT)
				.coverage((coverage) -> coverage.check(true).percentage((share) -> share > 30));
		}

		/**
		 * Cancel a held request for an even {@code which}, one in flight for an odd, or
		 * one of the other kind when there is none.
		 */
		private void cancel(int which) {
			List<Admitted> held = open(false);
			List<Admitted> inFlight = open(true);
			List<Admitted> open = ((which % 2 == 0 && !held.isEmpty()) || inFlight.isEmpty()) ? held : inFlight;
			if (open.isEmpty()) {
				return;
			}
			Admitted request = open.get(which / 2 % open.size());
			request.cancelled = true;
			if (request.sent.forwarded()) {
				this.cancelledInFlight = true;
			}
			else {
				request.givenBackAt = this.fixture.clock.nanoTime();
				this.events.add(new Event(request.givenBackAt, true, request.at));
				this.heldCancelled++;
			}
			request.sent.subscription.dispose();
		}

		private List<Admitted> open(boolean forwarded) {
			return this.admitted.stream()
				.filter((request) -> !request.cancelled && request.sent.forwarded() == forwarded)
				.toList();
		}

		private void assertAccounted() {
			assertThat(this.fixture.store.givenBack).as("places given back").hasValue(this.heldCancelled);
			if (this.admitted.isEmpty()) {
				return;
			}
			double actual = this.fixture.state(CLIENT).get(this.measure).doubleValue();
			assertThat(actual).as("%s after each given back once, at its cancel", this.measure)
				.isCloseTo(told(), offset(DISPLAYED));
			long kept = this.admitted.stream().filter((request) -> request.givenBackAt == null).count() * this.cost;
			assertThat(this.fixture.state(CLIENT, 1)).as("window").containsEntry("count", kept);
			// No place is lost: the bucket admits at least what the requests not given back
			// leave room for. Not exactly that: a held request is released when its timer,
			// set when it was judged, fires; with places ahead of it given back meanwhile,
			// the queue drains its units while it is still held, and a reservation given
			// back lets the bucket refill past the point where, without it, it would have
			// been full.
			if (this.limit instanceof LeakyBucket) {
				assertThat(actual).as("level of the requests not given back, or less")
					.isLessThanOrEqualTo(kept() + DISPLAYED);
			}
			else {
				assertThat(actual).as("tokens of the requests not given back, or more")
					.isGreaterThanOrEqualTo(kept() - DISPLAYED);
			}
		}

		/**
		 * What a bucket told of every admitted request when it was judged, and of every
		 * place given back when it was, in the order they happened, holds now.
		 */
		private double told() {
			LimitState model = this.limit.newState(this.start);
			for (Event event : this.events) {
				if (event.givenBack()) {
					model.refund(event.at(), this.cost, event.consumedAt());
				}
				else {
					model.commit(event.at(), this.cost);
				}
			}
			return now(model);
		}

		/**
		 * What a bucket that saw only the requests not given back holds now.
		 */
		private double kept() {
			LimitState model = this.limit.newState(this.start);
			for (Admitted request : this.admitted) {
				if (request.givenBackAt == null) {
					model.commit(request.at, this.cost);
				}
			}
			return now(model);
		}

		private double now(LimitState model) {
			return model.describe(this.fixture.clock.nanoTime()).get(this.measure).doubleValue();
		}

	}

	/**
	 * What the bucket is told, at {@code at}: a request admitted, or the place of one
	 * admitted at {@code consumedAt} given back.
	 */
	private record Event(long at, boolean givenBack, long consumedAt) {
	}

	/**
	 * An admitted request: held, or forwarded and in flight, until cancelled.
	 */
	private static final class Admitted {

		final Sent sent;

		final long at;

		boolean cancelled;

		/**
		 * When its place was given back: cancelled while held; {@code null} otherwise.
		 */
		Long givenBackAt;

		Admitted(Sent sent, long at) {
			this.sent = sent;
			this.at = at;
		}

	}

}
