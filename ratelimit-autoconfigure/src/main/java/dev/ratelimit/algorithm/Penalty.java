package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A penalty box: a breach (a request its limits refuse) blocks the client for the
 * current step of {@code block-for}, even once its limits would have room again; the
 * next breach after a block ended serves the next step, the last one repeating; a
 * client without a breach for {@code forgive-after} after its block ended is forgiven,
 * and its next breach serves the first step again. Pure arithmetic on instants the
 * caller reads: the stores keep each client's {@link Block} and call {@link #breach}
 * atomically with the decision that found the breach.
 */
public final class Penalty {

	private final List<Duration> blockFor;

	private final @Nullable Duration forgiveAfter;

	private final long[] stepNanos;

	private final long forgiveAfterNanos;

	/**
	 * @param blockFor how long each step blocks, in order, at least one, each positive
	 * @param forgiveAfter how long after a block ended a client without a breach is
	 * forgiven; required with more than one step, and refused with one, whose step
	 * always repeats
	 * @throws IllegalArgumentException when either breaks those rules
	 */
	public Penalty(List<Duration> blockFor, @Nullable Duration forgiveAfter) {
		if (blockFor.isEmpty()) {
			throw new IllegalArgumentException("block-for must list at least one duration");
		}
		this.stepNanos = new long[blockFor.size()];
		for (int i = 0; i < this.stepNanos.length; i++) {
			Validation.positiveDuration("block-for[" + i + "]", blockFor.get(i));
			this.stepNanos[i] = blockFor.get(i).toNanos();
		}
		if (blockFor.size() == 1 && forgiveAfter != null) {
			throw new IllegalArgumentException("forgive-after must not be set for one block-for step");
		}
		if (blockFor.size() > 1) {
			Validation.positiveDuration("forgive-after", forgiveAfter);
		}
		this.blockFor = List.copyOf(blockFor);
		this.forgiveAfter = forgiveAfter;
		this.forgiveAfterNanos = (forgiveAfter != null) ? forgiveAfter.toNanos() : 0;
	}

	/**
	 * A penalty of one step.
	 */
	public Penalty(Duration blockFor) {
		this(List.of(blockFor), null);
	}

	public List<Duration> blockFor() {
		return this.blockFor;
	}

	public @Nullable Duration forgiveAfter() {
		return this.forgiveAfter;
	}

	/**
	 * The block a breach at {@code nowNanos} puts the client in.
	 * @param previous the client's record, {@code null} when it has none
	 * @return {@code previous} itself when it still blocks (a breach found by a decision
	 * that raced the one that started it starts nothing); else a block of the first
	 * step when there was no record or it is forgiven, of the step after the previous
	 * one otherwise, the last step repeating (and a previous step beyond the steps a
	 * reload left serving the last)
	 */
	public Block breach(@Nullable Block previous, long nowNanos) {
		if (previous != null && previous.blocks(nowNanos)) {
			return previous;
		}
		int step = (previous != null && !previous.forgiven(nowNanos))
				? Math.min(previous.step() + 1, this.stepNanos.length) : 1;
		long until = saturatedAdd(nowNanos, this.stepNanos[step - 1]);
		return new Block(step, until, saturatedAdd(until, this.forgiveAfterNanos));
	}

	private static long saturatedAdd(long instant, long nanos) {
		long sum = instant + nanos;
		return (sum < instant) ? Long.MAX_VALUE : sum;
	}

	@Override
	public boolean equals(Object other) {
		return this == other || other instanceof Penalty penalty && this.blockFor.equals(penalty.blockFor)
				&& Objects.equals(this.forgiveAfter, penalty.forgiveAfter);
	}

	@Override
	public int hashCode() {
		return 31 * this.blockFor.hashCode() + Objects.hashCode(this.forgiveAfter);
	}

	@Override
	public String toString() {
		return "Penalty[blockFor=" + this.blockFor + ((this.forgiveAfter != null) ? ", forgiveAfter="
				+ this.forgiveAfter : "") + "]";
	}

}
