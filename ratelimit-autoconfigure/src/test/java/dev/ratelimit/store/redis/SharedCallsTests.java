package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.support.ManualClock;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lanes of {@link SharedCalls} on a judge the test answers by hand: who goes at once,
 * who waits and goes together, in which order, bounded how, and what is refused here.
 */
class SharedCallsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private static final Tier TIER = TestPolicies.tier("free", new FixedWindow(10, Duration.ofMinutes(1)));

	private static final BucketId ID = new BucketId("orders", "free", "client");

	private final RedisLayout layout = new RedisLayout("rl", "orders", TIER);

	private final ManualClock clock = new ManualClock();

	private final HandJudge judge = new HandJudge();

	@Test
	void aRequestFindingNoCallInFlightGoesAtOnceAndThoseArrivingMeanwhileGoTogetherInOrder() {
		SharedCalls calls = new SharedCalls(this.clock, TIMEOUT, 64, true);
		List<AtomicReference<Verdict>> answers = new ArrayList<>();
		for (long cost = 1; cost <= 4; cost++) {
			answers.add(decide(calls, cost, true));
		}
		assertThat(this.judge.calls).extracting(Call::costs).containsExactly(List.of(1L));
		this.judge.answer(0, admitted(9));
		assertThat(answers.get(0).get().allowed()).isTrue();
		assertThat(this.judge.calls).extracting(Call::costs).containsExactly(List.of(1L), List.of(2L, 3L, 4L));
		this.judge.answer(1, admitted(7), admitted(4), refused(4, Duration.ofSeconds(30)));
		assertThat(answers).extracting((answer) -> answer.get().allowed()).containsExactly(true, true, true, false);
		assertThat(calls.calls()).isEqualTo(2);
		assertThat(calls.judgedOnRedis()).isEqualTo(4);
		decide(calls, 1, true);
		assertThat(this.judge.calls).hasSize(3).last().extracting(Call::costs).isEqualTo(List.of(1L));
	}

	@Test
	void callsThatCannotBeSharedGoAtOnceEachAlone() {
		SharedCalls calls = new SharedCalls(this.clock, TIMEOUT, 64, true);
		decide(calls, 1, false);
		decide(calls, 2, false);
		assertThat(this.judge.calls).extracting(Call::costs).containsExactly(List.of(1L), List.of(2L));
	}

	@Test
	void noMoreThanTheBoundWaitForOneCallAndTheRestGoAlone() {
		SharedCalls calls = new SharedCalls(this.clock, TIMEOUT, 2, true);
		for (long cost = 1; cost <= 4; cost++) {
			decide(calls, cost, true);
		}
		assertThat(this.judge.calls).extracting(Call::costs).containsExactly(List.of(1L), List.of(4L));
		this.judge.answer(0, admitted(9));
		assertThat(this.judge.calls).extracting(Call::costs).containsExactly(List.of(1L), List.of(4L),
				List.of(2L, 3L));
	}

	@Test
	void aFailedCallAnswersEveryRequestInItByTheFailureMode() {
		SharedCalls calls = new SharedCalls(this.clock, TIMEOUT, 64, true);
		AtomicReference<Verdict> first = decide(calls, 1, true);
		AtomicReference<Verdict> second = decide(calls, 1, true);
		AtomicReference<Verdict> third = decide(calls, 1, true);
		this.judge.answer(0, admitted(9));
		this.judge.fail(1, new IllegalStateException("connection reset"));
		assertThat(first.get().fallback()).isFalse();
		assertThat(List.of(second.get(), third.get())).allMatch(Verdict::fallback);
		assertThat(this.judge.failures).containsExactly("connection reset", "connection reset");
	}

	@Test
	void requestsWhoseTimeRanOutWaitingBehindAStalledCallAreAnsweredByTheFailureModeWithoutACall() {
		SharedCalls calls = new SharedCalls(this.clock, TIMEOUT, 64, true);
		decide(calls, 1, true);
		AtomicReference<Verdict> waiting = decide(calls, 1, true);
		this.clock.advance(TIMEOUT);
		this.judge.fail(0, new TimeoutException("stalled"));
		assertThat(this.judge.calls).hasSize(1);
		assertThat(waiting.get().fallback()).isTrue();
		assertThat(this.judge.failures).hasSize(2).last().asString().contains("earlier call on its bucket");
	}

	@Test
	void aWaitingRequestCancelledBeforeItsCallIsLeftOut() {
		SharedCalls calls = new SharedCalls(this.clock, TIMEOUT, 64, true);
		decide(calls, 1, true);
		Disposable cancelled = calls.decide(this.judge, ID, this.layout, 2, true).subscribe();
		decide(calls, 3, true);
		cancelled.dispose();
		this.judge.answer(0, admitted(9));
		assertThat(this.judge.calls).last().extracting(Call::costs).isEqualTo(List.of(3L));
	}

	@Test
	void aRefusalIsRepeatedHereForItsCostUntilItsRetryAfterThenRedisIsAskedAgain() {
		SharedCalls calls = new SharedCalls(this.clock, TIMEOUT, 64, true);
		decide(calls, 1, true);
		this.judge.answer(0, refused(0, Duration.ofSeconds(10)));
		this.clock.advance(Duration.ofSeconds(4));
		Verdict here = decide(calls, 1, true).get();
		assertThat(here.allowed()).isFalse();
		assertThat(here.fallback()).isFalse();
		assertThat(here.retryAfterNanos()).isEqualTo(Duration.ofSeconds(6).toNanos());
		assertThat(((Decision) here).resetNanos()).isEqualTo(Duration.ofSeconds(6).toNanos());
		decide(calls, 2, true);
		assertThat(this.judge.calls).as("another cost is asked").hasSize(2);
		assertThat(this.judge.calls.get(1).refusedHere()).as("the request refused here, counted").isEqualTo(1);
		this.judge.answer(1, refused(0, Duration.ofSeconds(6)));
		this.clock.advance(Duration.ofSeconds(6));
		decide(calls, 2, true);
		assertThat(this.judge.calls).hasSize(3);
		assertThat(this.judge.calls.get(2).refusedHere()).isZero();
		assertThat(calls.refusedLocally()).isEqualTo(1);
	}

	@Test
	void anAdmissionSinceARefusalEndsIt() {
		SharedCalls calls = new SharedCalls(this.clock, TIMEOUT, 64, true);
		decide(calls, 2, true);
		this.judge.answer(0, refused(1, Duration.ofSeconds(10)));
		decide(calls, 1, true);
		this.judge.answer(1, admitted(0));
		decide(calls, 2, true);
		assertThat(this.judge.calls).hasSize(3);
	}

	@Test
	void aForgottenRefusalIsNotRepeatedNorIsOneOfACallSentBeforeIt() {
		SharedCalls calls = new SharedCalls(this.clock, TIMEOUT, 64, true);
		decide(calls, 1, true);
		this.judge.answer(0, refused(0, Duration.ofSeconds(10)));
		decide(calls, 1, true);
		assertThat(this.judge.calls).hasSize(1);
		calls.forget(this.judge, this.layout, ID.key());
		decide(calls, 1, false);
		this.clock.advance(Duration.ofMillis(1));
		calls.forget(this.judge, this.layout, ID.key());
		this.judge.answer(1, refused(0, Duration.ofSeconds(10)));
		decide(calls, 1, true);
		assertThat(this.judge.calls).hasSize(3);
	}

	@Test
	void withoutLocalRefusalsEveryRequestIsAsked() {
		SharedCalls calls = new SharedCalls(this.clock, TIMEOUT, 64, false);
		decide(calls, 1, true);
		this.judge.answer(0, refused(0, Duration.ofSeconds(10)));
		decide(calls, 1, true);
		assertThat(this.judge.calls).hasSize(2);
	}

	private AtomicReference<Verdict> decide(SharedCalls calls, long cost, boolean shareable) {
		AtomicReference<Verdict> answer = new AtomicReference<>();
		calls.decide(this.judge, ID, this.layout, cost, shareable).subscribe(answer::set);
		return answer;
	}

	private static Verdict admitted(long remaining) {
		return new Decision(true, remaining, 10, Duration.ofMinutes(1).toNanos(), 0);
	}

	private static Verdict refused(long remaining, Duration retryAfter) {
		return Decision.rejected(remaining, 10, retryAfter.toNanos());
	}

	private record Call(List<Long> costs, long refusedHere, Sinks.One<Verdict[]> reply) {
	}

	private static final class HandJudge implements SharedCalls.Judge {

		final List<Call> calls = new ArrayList<>();

		final List<String> failures = new ArrayList<>();

		@Override
		public boolean allowsCall() {
			return true;
		}

		@Override
		public Mono<Verdict[]> call(BucketId id, RedisLayout layout, long[] costs, long refusedHere) {
			List<Long> list = new ArrayList<>();
			for (long cost : costs) {
				list.add(cost);
			}
			Sinks.One<Verdict[]> reply = Sinks.one();
			this.calls.add(new Call(list, refusedHere, reply));
			return reply.asMono();
		}

		void answer(int call, Verdict... verdicts) {
			this.calls.get(call).reply().tryEmitValue(verdicts);
		}

		void fail(int call, Throwable failure) {
			this.calls.get(call).reply().tryEmitError(failure);
		}

		@Override
		public void answered() {
		}

		@Override
		public Mono<Verdict> failed(Throwable failure, BucketId id, Tier tier, long cost) {
			this.failures.add(failure.getMessage());
			return Mono.just(Verdict.withoutLimits(true, 0));
		}

		@Override
		public Mono<Verdict> fallback(BucketId id, Tier tier, long cost) {
			return Mono.just(Verdict.withoutLimits(true, 0));
		}

	}

}
