package dev.ratelimit.store;

import dev.ratelimit.algorithm.Block;

/**
 * A client's penalty block in force, for the actuator.
 *
 * @param id the blocked bucket's identity (raw key)
 * @param block the block: its step and end
 * @param remainingNanos how long it still lasts, by the store's clock
 */
public record BlockSnapshot(BucketId id, Block block, long remainingNanos) {
}
