package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import dev.ratelimit.algorithm.Penalty;

/**
 * A {@link Penalty} as the penalized scripts take it: its steps and forgiveness in
 * whole microseconds of Redis time, rounded up so that no block is shorter than
 * configured, written once ({@link ScriptProtocol} lays out the calls).
 */
final class RedisPenalty {

	private final String blockForMicros;

	private final String forgiveAfterMicros;

	RedisPenalty(Penalty penalty) {
		StringJoiner steps = new StringJoiner(" ");
		for (Duration step : penalty.blockFor()) {
			steps.add(Long.toString(ceilMicros(step)));
		}
		this.blockForMicros = steps.toString();
		Duration forgiveAfter = penalty.forgiveAfter();
		this.forgiveAfterMicros = Long.toString((forgiveAfter != null) ? ceilMicros(forgiveAfter) : 0);
	}

	/**
	 * The keys of a penalized call: the unpenalized call's, then the block key.
	 */
	List<String> keys(List<String> keys, String blockKey) {
		List<String> penalized = new ArrayList<>(keys.size() + 1);
		penalized.addAll(keys);
		penalized.add(blockKey);
		return penalized;
	}

	/**
	 * The arguments of a penalized call: the unpenalized call's, then the steps and the
	 * forgiveness.
	 */
	List<String> arguments(List<String> arguments) {
		List<String> penalized = new ArrayList<>(arguments.size() + 2);
		penalized.addAll(arguments);
		penalized.add(this.blockForMicros);
		penalized.add(this.forgiveAfterMicros);
		return penalized;
	}

	private static long ceilMicros(Duration duration) {
		long nanos = duration.toNanos();
		return nanos / 1000 + ((nanos % 1000 != 0) ? 1 : 0);
	}

}
