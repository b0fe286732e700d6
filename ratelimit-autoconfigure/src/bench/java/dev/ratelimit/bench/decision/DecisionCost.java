package dev.ratelimit.bench.decision;

import java.util.concurrent.TimeUnit;

import dev.ratelimit.bench.Contender;
import dev.ratelimit.bench.KeyedLimiter;
import dev.ratelimit.bench.Quota;
import dev.ratelimit.store.BucketId;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of one decision, through the entry point each library offers per request
 * (ours: {@code BucketDecider.acquireNow} of the Caffeine store, as the gateway filter
 * calls it), consuming what a caller reads of the answer, on five workloads. Every contender keeps its per-key states in a Caffeine cache
 * of {@value #MAXIMUM_KEYS} keys, our store's default.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DecisionCost {

	static final long MAXIMUM_KEYS = 1_000_000;

	/**
	 * One existing key within its limit, one thread.
	 */
	@Benchmark
	@Threads(1)
	public void hotKey(HotKey state, Blackhole blackhole) {
		state.limiter.acquire(state.id, blackhole);
	}

	/**
	 * One existing key within its limit, two threads contending for it.
	 */
	@Benchmark
	@Threads(2)
	public void hotKeyTwoThreads(HotKey state, Blackhole blackhole) {
		state.limiter.acquire(state.id, blackhole);
	}

	/**
	 * One existing key over its limit: every request rejected.
	 */
	@Benchmark
	@Threads(1)
	public void rejectedKey(RejectedKey state, Blackhole blackhole) {
		state.limiter.acquire(state.id, blackhole);
	}

	/**
	 * A key drawn at random among {@code keys} existing ones: most of the state is out
	 * of the CPU caches.
	 */
	@Benchmark
	@Threads(1)
	public void manyKeys(ManyKeys state, Cursor cursor, Blackhole blackhole) {
		state.limiter.acquire(state.ids[cursor.random(state.ids.length)], blackhole);
	}

	/**
	 * A key never seen before, in a cache full with {@value #MAXIMUM_KEYS} others: a
	 * state is created and another evicted. The new key's id and string (about 70 bytes)
	 * are allocated in the benchmark, as a request brings its key.
	 */
	@Benchmark
	@Threads(1)
	public void newKey(NewKeys state, Cursor cursor, Blackhole blackhole) {
		state.limiter.acquire(Contender.id(cursor.freshKey()), blackhole);
	}

	@State(Scope.Benchmark)
	public static class Choice {

		@Param({ "fixed-window", "sliding-window-log", "sliding-window-counter", "token-bucket", "leaky-bucket",
				"bucket4j", "bucket4j-scg", "guava", "resilience4j" })
		public String limiter;

		KeyedLimiter create(Quota quota) {
			return Contender.of(this.limiter).create(quota, MAXIMUM_KEYS);
		}

	}

	@State(Scope.Benchmark)
	public static class HotKey {

		KeyedLimiter limiter;

		final BucketId id = Contender.id("10.0.0.1");

		@Setup
		public void create(Choice choice) {
			this.limiter = choice.create(Quota.OPEN_HOT);
			Checks.admits(this.limiter, this.id, true);
			Checks.admits(this.limiter, this.id, true);
		}

	}

	@State(Scope.Benchmark)
	public static class RejectedKey {

		KeyedLimiter limiter;

		final BucketId id = Contender.id("10.0.0.1");

		@Setup
		public void create(Choice choice) {
			this.limiter = choice.create(Quota.EXHAUSTED);
			Checks.admits(this.limiter, this.id, true);
			Checks.admits(this.limiter, this.id, false);
		}

	}

	@State(Scope.Benchmark)
	public static class ManyKeys {

		@Param("1000000")
		public int keys;

		KeyedLimiter limiter;

		BucketId[] ids;

		@Setup
		public void create(Choice choice) {
			this.limiter = choice.create(Quota.OPEN);
			this.ids = new BucketId[this.keys];
			for (int i = 0; i < this.keys; i++) {
				this.ids[i] = Contender.id(Contender.clientKey(i));
				this.limiter.acquire(this.ids[i]);
			}
			Checks.admits(this.limiter, this.ids[this.keys - 1], true);
		}

	}

	@State(Scope.Benchmark)
	public static class NewKeys {

		KeyedLimiter limiter;

		@Setup
		public void create(Choice choice) {
			this.limiter = choice.create(Quota.OPEN);
			for (int i = 0; i < MAXIMUM_KEYS; i++) {
				this.limiter.acquire(Contender.id(Contender.clientKey(i)));
			}
		}

	}

	/**
	 * Each thread's own random sequence and counter of fresh keys.
	 */
	@State(Scope.Thread)
	public static class Cursor {

		private long seed = 0x9E3779B97F4A7C15L;

		private long fresh;

		/**
		 * xorshift64: a random index without allocation or shared state.
		 */
		int random(int bound) {
			long x = this.seed;
			x ^= x << 13;
			x ^= x >>> 7;
			x ^= x << 17;
			this.seed = x;
			return (int) ((x >>> 33) % bound);
		}

		String freshKey() {
			return Long.toString(this.fresh++);
		}

	}

}
