package dev.ratelimit.store.redis;

import dev.ratelimit.algorithm.Algorithm;
import org.jspecify.annotations.Nullable;

/**
 * A tier's one limit as its lean script is written for it: the script carries these as
 * Lua constants ({@link ScriptAssembler#lean(LeanLimit)}), so that no call sends them
 * and Redis turns none of them from text into a number. Each is the text the generic
 * script's arguments give the same limit ({@link RedisLayout}), so that both scripts
 * compute with the same numbers. Tiers whose limits are equal share one script.
 *
 * @param algorithm the limit's algorithm
 * @param idleMillis the tier's idle timeout in milliseconds
 * @param quota the limit's quota
 * @param period its period in microseconds; {@code null} for a window counted in calendar
 * periods, which each call sends
 * @param rate its rate per period ({@code 0} for a window)
 * @param maxDelay the longest hold of a shaping limit in microseconds; {@code 0} for one
 * that meters
 * @param delayAfter the units a shaping limit lets through without holding them
 * @param tagged the limit's tag between {@code |} and a space, as it stands in the bucket
 * key
 */
record LeanLimit(Algorithm algorithm, String idleMillis, String quota, @Nullable String period, String rate,
		String maxDelay, String delayAfter, String tagged) {

}
