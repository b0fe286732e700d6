package dev.ratelimit.web;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.ratelimit.algorithm.Verdict;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * A store's decision its request awaits, which a cancel does not cut short: the store
 * may already have applied it, so its answer is always taken, by the request when it
 * still awaits it, else by whoever gives back what it took. Whichever of the answer
 * and the cancel comes first decides, once: a cancel after the answer is the
 * request's own, to settle as it settles what it went on with.
 */
final class AwaitedDecision implements Consumer<Verdict> {

	private static final int AWAITED = 0;

	private static final int ANSWERED = 1;

	private static final int ABANDONED = 2;

	private final AtomicInteger state = new AtomicInteger(AWAITED);

	private final MonoSink<Verdict> request;

	private final Consumer<Verdict> abandoned;

	private AwaitedDecision(MonoSink<Verdict> request, Consumer<Verdict> abandoned) {
		this.request = request;
		this.abandoned = abandoned;
	}

	/**
	 * @param decision the store's decision, which never fails
	 * @param abandoned takes the answer of a decision its request no longer awaits
	 * @param cancelled runs when the request is cancelled before the answer came
	 */
	static Mono<Verdict> of(Mono<Verdict> decision, Consumer<Verdict> abandoned, Runnable cancelled) {
		return Mono.create((sink) -> {
			AwaitedDecision awaited = new AwaitedDecision(sink, abandoned);
			sink.onCancel(() -> {
				if (awaited.state.compareAndSet(AWAITED, ABANDONED)) {
					cancelled.run();
				}
			});
			decision.contextWrite(sink.contextView()).subscribe(awaited);
		});
	}

	@Override
	public void accept(Verdict verdict) {
		if (this.state.compareAndSet(AWAITED, ANSWERED)) {
			this.request.success(verdict);
		}
		else {
			this.abandoned.accept(verdict);
		}
	}

}
