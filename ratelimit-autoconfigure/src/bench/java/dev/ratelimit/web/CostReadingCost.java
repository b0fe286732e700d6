package dev.ratelimit.web;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The CPU a request pays for its cost read from its body: {@link #read} feeds a whole
 * body, in the 8 KB direct buffers Netty hands the response, to a fresh
 * {@link BodyNumbers} as {@link CostReadingResponse} does, and takes its number;
 * {@link #walk}, the control, reads every byte of the same buffers through a duplicate
 * and nothing more, so that the reading's own cost is the difference.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CostReadingCost {

	@Param({ "json", "event-stream", "json-gzip" })
	public String body;

	@Param({ "1024", "102400", "1048576", "10485760" })
	public int size;

	private Bodies bodies;

	private ByteBuffer[] chunks;

	@Setup
	public void setUp() {
		this.bodies = Bodies.named(this.body);
		this.chunks = this.bodies.chunks(this.size);
		this.bodies.check(this.chunks);
	}

	@Benchmark
	public Number read() {
		return this.bodies.read(this.chunks);
	}

	@Benchmark
	public long walk() {
		long sum = 0;
		for (ByteBuffer chunk : this.chunks) {
			ByteBuffer bytes = chunk.duplicate();
			while (bytes.hasRemaining()) {
				sum += bytes.get();
			}
		}
		return sum;
	}

}
