package dev.ratelimit.store.caffeine;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.stream.Stream;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

import dev.ratelimit.algorithm.Block;
import dev.ratelimit.algorithm.Penalty;
import dev.ratelimit.store.BlockSnapshot;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.support.MonotonicClock;
import org.jspecify.annotations.Nullable;

/**
 * The penalty records of the Caffeine store's buckets, each bucket's {@link Block} by
 * its id, in a cache of their own beside the buckets: a record outlives its bucket (a
 * block lasts longer than a window), and the buckets' cache stays as it is measured.
 * Bounded by {@code maximum-keys} as the buckets are; a record expires once forgiven,
 * when it would count for nothing, so that memory stays flat however many clients are
 * blocked. Under that bound's pressure a record may be evicted, and its client forgiven
 * early, never a crash.
 */
final class PenaltyRecords {

	private final MonotonicClock clock;

	private final Cache<BucketId, Block> records;

	PenaltyRecords(MonotonicClock clock, long maximumKeys, Executor maintenanceExecutor) {
		this.clock = clock;
		this.records = Caffeine.newBuilder()
			.ticker(clock::nanoTime)
			.executor(maintenanceExecutor)
			.maximumSize(maximumKeys)
			.expireAfter(new UntilForgiven())
			.build();
	}

	/**
	 * The block of {@code id} in force at {@code nowNanos}, or {@code null}.
	 */
	@Nullable Block blocking(BucketId id, long nowNanos) {
		Block block = this.records.getIfPresent(id);
		return (block != null && block.blocks(nowNanos)) ? block : null;
	}

	/**
	 * Record a breach of {@code id} at {@code nowNanos}, atomically with any other
	 * breach of it: the block {@link Penalty#breach} gives after the record it had.
	 */
	Breach breach(BucketId id, Penalty penalty, long nowNanos) {
		Block[] previous = new Block[1];
		Block block = this.records.asMap().compute(id, (key, recorded) -> {
			previous[0] = recorded;
			return penalty.breach(recorded, nowNanos);
		});
		return new Breach(block, block != previous[0]);
	}

	/**
	 * Forget the records of {@code ids}.
	 * @return whether one had a record
	 */
	boolean forget(Set<BucketId> ids) {
		boolean forgotten = false;
		for (BucketId id : ids) {
			forgotten |= this.records.asMap().remove(id) != null;
		}
		return forgotten;
	}

	/**
	 * The blocks in force of a policy, walked without locking or copying the cache.
	 */
	Stream<BlockSnapshot> blocks(String policy) {
		return this.records.asMap()
			.entrySet()
			.stream()
			.filter((record) -> record.getKey().policy().equals(policy))
			.map((record) -> snapshot(record.getKey(), record.getValue()))
			.filter((snapshot) -> snapshot != null);
	}

	/**
	 * The blocks in force of {@code ids}, looked up without keeping them alive.
	 */
	List<BlockSnapshot> blocks(Set<BucketId> ids) {
		List<BlockSnapshot> blocks = new ArrayList<>();
		for (BucketId id : ids) {
			Block block = this.records.policy().getIfPresentQuietly(id);
			BlockSnapshot snapshot = (block != null) ? snapshot(id, block) : null;
			if (snapshot != null) {
				blocks.add(snapshot);
			}
		}
		return blocks;
	}

	private @Nullable BlockSnapshot snapshot(BucketId id, Block block) {
		long now = this.clock.nanoTime();
		return block.blocks(now) ? new BlockSnapshot(id, block, block.remainingNanos(now)) : null;
	}

	/**
	 * What a breach left: the block in force, and whether that breach started it rather
	 * than finding one another decision had just started.
	 */
	record Breach(Block block, boolean started) {
	}

	/**
	 * A record is kept until it is forgiven, and the {@link ExpiryTolerance} longer: the
	 * record's own instants decide, not its expiry.
	 */
	private static final class UntilForgiven implements Expiry<BucketId, Block> {

		@Override
		public long expireAfterCreate(BucketId id, Block block, long currentTime) {
			return keptFor(block, currentTime);
		}

		@Override
		public long expireAfterUpdate(BucketId id, Block block, long currentTime, long currentDuration) {
			return keptFor(block, currentTime);
		}

		@Override
		public long expireAfterRead(BucketId id, Block block, long currentTime, long currentDuration) {
			return currentDuration;
		}

		private static long keptFor(Block block, long nowNanos) {
			return ExpiryTolerance.keptFor(block.forgivenNanos() - nowNanos);
		}

	}

}
