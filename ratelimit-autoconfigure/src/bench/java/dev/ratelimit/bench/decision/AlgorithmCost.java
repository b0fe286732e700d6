package dev.ratelimit.bench.decision;

import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.algorithm.Bucket;
import dev.ratelimit.bench.Contender;
import dev.ratelimit.bench.Quota;
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
 * The bare algorithm: one bucket's decision at the clock's reading, without the store
 * (no cache lookup, no monitor, no {@code Mono}). Its difference to
 * {@link DecisionCost#hotKey} is what the store adds.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class AlgorithmCost {

	@Param({ "fixed-window", "sliding-window-log", "sliding-window-counter", "token-bucket", "leaky-bucket" })
	public String limiter;

	private Bucket bucket;

	@Setup
	public void create() {
		this.bucket = Bucket.of(List.of(Contender.of(this.limiter).limit(Quota.OPEN_HOT)), System.nanoTime());
		if (!this.bucket.tryAcquire(System.nanoTime(), 1).allowed()) {
			throw new IllegalStateException(this.limiter + " rejected the benchmark's first request");
		}
	}

	@Benchmark
	@Threads(1)
	public void hotKey(Blackhole blackhole) {
		Contender.consume(this.bucket.tryAcquire(System.nanoTime(), 1), blackhole);
	}

}
