package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * What a hot bucket costs Redis, kept to a fraction of a call per request while every
 * decision stays exact. Two mechanisms, per bucket (its policy, tier and key) and mode,
 * on this node:
 * <ul>
 * <li><b>Refused until its retry-after.</b> When Redis refuses a request, this node
 * refuses the bucket's requests of that cost by itself until the retry-after has passed
 * ({@link RefusedUntil}): other nodes can only take more meanwhile, so none of them
 * could fit. Redis's latest answer on the bucket stands: an admission forgets the
 * refusal. A refund this node settles on the bucket (a held request that never
 * went on, a reported cost below its estimate) may make room earlier, so it forgets the
 * refusal ({@link #forget}); another node's refund is seen at the retry-after at the
 * latest, so this node may refuse until then what Redis would admit, never admit what it
 * would refuse. The requests refused so are counted as judged in the bucket's next call.
 * </li>
 * <li><b>Shared calls.</b> A request that finds no call in flight for its bucket goes at
 * once; those arriving while one is in flight wait for it to end and go together in the
 * next call, at most {@code maxBatch} of them, which Redis judges in their order of
 * arrival, each as if alone. Only the lean script judges several; other calls go one
 * request each, at once. A request waits no longer than the decision timeout in all: the
 * next call is bounded by what is left of its first request's, and a request whose time
 * ran out waiting is answered by the failure mode without a call. A failed call, or one
 * slower than that, answers every request in it by the failure mode.</li>
 * </ul>
 * A lane's state is touched under its own lock, held only to read or change it: calls are
 * sent and verdicts delivered outside it. Lanes idle for {@link #IDLE_LANE} are
 * forgotten; one forgotten while its call is in flight still answers its requests, and
 * its bucket's next request starts a new lane, so that two calls may then be in flight at
 * once, which Redis judges one after the other as ever.
 */
final class SharedCalls {

	/**
	 * How long a lane nobody asked lives on, its refusal with it.
	 */
	static final Duration IDLE_LANE = Duration.ofMinutes(1);

	/**
	 * Lanes kept at most: a bucket whose lane was dropped only loses what its lane saved.
	 */
	private static final long MAX_LANES = 100_000;

	private final Cache<LaneKey, Lane> lanes;

	private final MonotonicClock clock;

	private final long timeoutNanos;

	private final int maxBatch;

	private final boolean refuseLocally;

	private final LongAdder calls = new LongAdder();

	private final LongAdder judgedOnRedis = new LongAdder();

	private final LongAdder refusedLocally = new LongAdder();

	/**
	 * @param clock this node's clock, which the refusals' retry-after are counted on
	 * @param timeout longest a request waits for its decision, queued and called
	 * @param maxBatch most requests one call judges; {@code 1}: each goes alone
	 * @param refuseLocally whether Redis's refusals are repeated here until their
	 * retry-after
	 */
	SharedCalls(MonotonicClock clock, Duration timeout, int maxBatch, boolean refuseLocally) {
		if (maxBatch < 1) {
			throw new IllegalArgumentException("maxBatch must be at least 1, was " + maxBatch);
		}
		this.clock = clock;
		this.timeoutNanos = timeout.toNanos();
		this.maxBatch = maxBatch;
		this.refuseLocally = refuseLocally;
		this.lanes = Caffeine.newBuilder()
			.ticker(clock::nanoTime)
			.expireAfterAccess(IDLE_LANE)
			.maximumSize(MAX_LANES)
			.build();
	}

	/**
	 * Decide a request of {@code cost} on its bucket's lane: refused here while Redis's
	 * last refusal stands, else judged by {@code judge} at once, or with those waiting.
	 * @param shareable whether the call may judge several requests (the lean script's)
	 */
	Mono<Verdict> decide(Judge judge, BucketId id, RedisLayout layout, long cost, boolean shareable) {
		return Mono.create((sink) -> {
			boolean shares = shareable;
			long now = this.clock.nanoTime();
			Lane lane = this.lanes.get(new LaneKey(judge, layout, id.key()), (key) -> new Lane(judge, id, layout));
			Waiting request = new Waiting(cost, now + this.timeoutNanos, sink);
			Verdict refused;
			boolean sendNow;
			synchronized (lane) {
				refused = lane.refusing(cost, now);
				if (refused != null) {
					lane.refusedHere++;
					sendNow = false;
				}
				else if (!shares) {
					sendNow = true;
				}
				else if (!lane.inFlight) {
					lane.inFlight = true;
					sendNow = true;
				}
				else if (lane.waiting.size() < this.maxBatch) {
					lane.waiting.add(request);
					sendNow = false;
				}
				else {
					// Over the bound, a call of its own: no request waits for more than one call.
					shares = false;
					sendNow = true;
				}
			}
			if (refused != null) {
				this.refusedLocally.increment();
				sink.success(refused);
				return;
			}
			sink.onCancel(request::cancel);
			if (sendNow) {
				send(lane, List.of(request), shares, now);
			}
		});
	}

	/**
	 * Forget the bucket's refusals in {@code judge}'s mode, once Redis has applied a
	 * refund this node settled or a reset, either of which may have made room: neither
	 * the refusal standing nor one of a call sent before now is repeated.
	 */
	void forget(Judge judge, RedisLayout layout, String key) {
		Lane lane = this.lanes.getIfPresent(new LaneKey(judge, layout, key));
		if (lane != null) {
			lane.forget(this.clock.nanoTime());
		}
	}

	/**
	 * Decision calls sent to Redis since start.
	 */
	long calls() {
		return this.calls.sum();
	}

	/**
	 * Requests Redis judged since start, in those calls.
	 */
	long judgedOnRedis() {
		return this.judgedOnRedis.sum();
	}

	/**
	 * Requests this node refused by itself since start, repeating a refusal of Redis's.
	 */
	long refusedLocally() {
		return this.refusedLocally.sum();
	}

	private void send(Lane lane, List<Waiting> requests, boolean continues, long now) {
		long refusedHere;
		synchronized (lane) {
			refusedHere = lane.refusedHere;
			lane.refusedHere = 0;
		}
		Judge judge = lane.judge;
		if (!judge.allowsCall()) {
			restore(lane, refusedHere);
			for (Waiting request : requests) {
				request.answer(judge.fallback(lane.id, lane.layout.tier(), request.cost));
			}
			next(lane, continues);
			return;
		}
		long left = requests.get(0).deadline - now;
		if (left <= 0) {
			restore(lane, refusedHere);
			failed(lane, requests, new TimeoutException("Did not observe any item or terminal signal within "
					+ Duration.ofNanos(this.timeoutNanos).toMillis() + "ms while an earlier call on its bucket was in "
					+ "flight"), continues);
			return;
		}
		long[] costs = new long[requests.size()];
		for (int i = 0; i < costs.length; i++) {
			costs[i] = requests.get(i).cost;
		}
		this.calls.increment();
		this.judgedOnRedis.add(costs.length);
		Mono<Verdict[]> call;
		try {
			call = judge.call(lane.id, lane.layout, costs, refusedHere).timeout(Duration.ofNanos(left));
		}
		catch (RuntimeException ex) {
			call = Mono.error(ex);
		}
		call.subscribe((verdicts) -> answered(lane, requests, now, verdicts, continues), (failure) -> {
			restore(lane, refusedHere);
			failed(lane, requests, failure, continues);
		});
	}

	private void answered(Lane lane, List<Waiting> requests, long sentNanos, Verdict[] verdicts, boolean continues) {
		lane.judge.answered();
		if (this.refuseLocally) {
			synchronized (lane) {
				// The latest answer stands: a request admitted since a refusal has changed what
				// each limit would say of it.
				if (sentNanos > lane.forgottenAt && sentNanos >= lane.latestAnswerSent) {
					lane.latestAnswerSent = sentNanos;
					for (int i = 0; i < verdicts.length; i++) {
						lane.refusal = RefusedUntil.of(requests.get(i).cost, sentNanos, verdicts[i]);
					}
				}
			}
		}
		for (int i = 0; i < verdicts.length; i++) {
			requests.get(i).answer(verdicts[i]);
		}
		next(lane, continues);
	}

	private void failed(Lane lane, List<Waiting> requests, Throwable failure, boolean continues) {
		for (Waiting request : requests) {
			request.answer(lane.judge.failed(failure, lane.id, lane.layout.tier(), request.cost));
		}
		next(lane, continues);
	}

	private void restore(Lane lane, long refusedHere) {
		synchronized (lane) {
			lane.refusedHere += refusedHere;
		}
	}

	/**
	 * After a shared call: the requests that waited for it go together, or the lane is
	 * free again.
	 */
	private void next(Lane lane, boolean continues) {
		if (!continues) {
			return;
		}
		List<Waiting> batch;
		synchronized (lane) {
			batch = new ArrayList<>(Math.min(lane.waiting.size(), this.maxBatch));
			while (!lane.waiting.isEmpty() && batch.size() < this.maxBatch) {
				Waiting request = lane.waiting.poll();
				if (!request.cancelled) {
					batch.add(request);
				}
			}
			if (batch.isEmpty()) {
				lane.inFlight = false;
				return;
			}
		}
		send(lane, batch, true, this.clock.nanoTime());
	}

	/**
	 * What a lane calls: one of the store's decision modes on Redis, and its failure mode.
	 */
	interface Judge {

		boolean allowsCall();

		/**
		 * Judge each of {@code costs} in turn, counting {@code refusedHere} more requests
		 * as judged; one verdict per cost, in order.
		 */
		Mono<Verdict[]> call(BucketId id, RedisLayout layout, long[] costs, long refusedHere);

		/**
		 * Redis answered a call.
		 */
		void answered();

		/**
		 * The failure mode's verdict on a request whose call failed.
		 */
		Mono<Verdict> failed(Throwable failure, BucketId id, Tier tier, long cost);

		/**
		 * The failure mode's verdict on a request no call was sent for, the breaker open.
		 */
		Mono<Verdict> fallback(BucketId id, Tier tier, long cost);

	}

	private record LaneKey(Judge judge, RedisLayout layout, String key) {
	}

	/**
	 * One bucket's decisions on this node in one mode.
	 */
	private static final class Lane {

		final Judge judge;

		final BucketId id;

		final RedisLayout layout;

		boolean inFlight;

		final ArrayDeque<Waiting> waiting = new ArrayDeque<>();

		@Nullable RefusedUntil refusal;

		/**
		 * Requests refused here since the last call, for the next to count as judged.
		 */
		long refusedHere;

		/**
		 * When the lane's refusals were last forgotten: a refusal of a call sent before
		 * may not have seen the refund or reset that made them forgotten.
		 */
		long forgottenAt = Long.MIN_VALUE;

		/**
		 * When the call whose answer the lane last took was sent: an older call's answer,
		 * arriving later, is not the bucket's latest.
		 */
		long latestAnswerSent = Long.MIN_VALUE;

		Lane(Judge judge, BucketId id, RedisLayout layout) {
			this.judge = judge;
			this.id = id;
			this.layout = layout;
		}

		synchronized void forget(long now) {
			this.refusal = null;
			this.forgottenAt = now;
		}

		@Nullable Verdict refusing(long cost, long now) {
			RefusedUntil refusal = this.refusal;
			if (refusal == null) {
				return null;
			}
			if (refusal.refuses(cost, now)) {
				return refusal.at(now);
			}
			if (now >= refusal.untilNanos()) {
				this.refusal = null;
			}
			return null;
		}

	}

	/**
	 * A request waiting for its verdict.
	 */
	private static final class Waiting {

		final long cost;

		final long deadline;

		final MonoSink<Verdict> sink;

		volatile boolean cancelled;

		Waiting(long cost, long deadline, MonoSink<Verdict> sink) {
			this.cost = cost;
			this.deadline = deadline;
			this.sink = sink;
		}

		void cancel() {
			this.cancelled = true;
		}

		void answer(Mono<Verdict> verdict) {
			verdict.subscribe(this.sink::success, this.sink::error);
		}

		void answer(Verdict verdict) {
			this.sink.success(verdict);
		}

	}

}
