package dev.ratelimit.store;

import java.util.List;

/**
 * A live bucket as it stands now, for the actuator.
 *
 * @param id the bucket's identity (raw key)
 * @param requests requests judged against this bucket since it was created
 * @param limits its limits, in the tier's order
 */
public record BucketSnapshot(BucketId id, long requests, List<LimitSnapshot> limits) {
}
