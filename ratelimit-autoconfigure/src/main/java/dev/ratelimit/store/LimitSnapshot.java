package dev.ratelimit.store;

import java.util.Map;

/**
 * One limit of a live bucket, as it stands now.
 *
 * @param algorithm the algorithm's configuration name
 * @param limit the quota: limit or capacity
 * @param remaining whole units left now
 * @param resetSeconds seconds until the remaining count next goes up, rounded up, as in
 * the response headers; {@code 0} when the whole quota is left
 * @param state the algorithm's own state (tokens, queue level, window counts, log
 * size)
 */
public record LimitSnapshot(String algorithm, long limit, long remaining, long resetSeconds,
		Map<String, Number> state) {
}
