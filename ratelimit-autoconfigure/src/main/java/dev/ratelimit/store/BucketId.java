package dev.ratelimit.store;

/**
 * Identifies one client's bucket: a policy, the tier the client was judged under, and
 * the resolved key. A key seen under two tiers (an IP with and without an API key)
 * has one bucket per tier, so switching tiers never resets a quota.
 *
 * @param policy the policy id
 * @param tier the tier name
 * @param key the resolved client key
 */
public record BucketId(String policy, String tier, String key) {
}
