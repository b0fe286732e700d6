package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.Tier;

/**
 * What src/bench/redis-script-cost.sh sends to Redis: the scripts exactly as
 * {@link BucketScript} assembles them, and one {@code acquire} call per algorithm on
 * one hot bucket of a tier of one limit, with the script, keys and arguments
 * {@link BucketScript} and {@link TierLayout} choose for it: the algorithm's lean
 * script where it has one, the generic script otherwise. Each
 * limit's quota outlasts any run, so every call is admitted and writes, as
 * {@code RedisRateLimiter}'s calls do in the same script.
 * <p>
 * Writes {@code script.lua} (the generic script), {@code script-<algorithm>.lua} for
 * each algorithm that takes a script of its own, and {@code calls.tsv} (per line: the
 * algorithm's name, then the {@code EVALSHA} arguments after the SHA, separated by
 * {@link #FIELD_SEPARATOR}) into the directory given as the only argument.
 */
public final class ScriptCostCalls {

	/**
	 * ASCII's unit separator: not white space, so that a shell reading the fields keeps
	 * an empty one.
	 */
	static final String FIELD_SEPARATOR = "\u001f";

	private ScriptCostCalls() {
	}

	public static void main(String[] args) throws IOException {
		if (args.length != 1) {
			throw new IllegalArgumentException("usage: ScriptCostCalls <output directory>");
		}
		Path directory = Files.createDirectories(Path.of(args[0]));
		write(directory.resolve("script.lua"), BucketScript.source());
		Duration second = Duration.ofSeconds(1);
		Duration minute = Duration.ofMinutes(1);
		Map<String, Limit> limits = new LinkedHashMap<>();
		limits.put("token-bucket", new TokenBucket(1_000_000, 1_000_000, second));
		limits.put("fixed-window", new FixedWindow(100_000_000, minute));
		limits.put("sliding-window-counter", new SlidingWindowCounter(100_000_000, minute));
		limits.put("leaky-bucket", new LeakyBucket(1_000_000, 1_000_000, second));
		limits.put("sliding-window-log", new SlidingWindowLog(100_000_000, minute));
		List<String> lines = new ArrayList<>();
		limits.forEach((name, limit) -> {
			TierLayout layout = new TierLayout("ratelimit", "script-cost", new Tier("default", List.of(limit)));
			boolean lean = layout.leanAlgorithm() != null;
			List<String> keys = lean ? layout.leanKeys("203.0.113.7") : layout.keys("203.0.113.7");
			List<String> call = new ArrayList<>();
			call.add(name);
			call.add(Integer.toString(keys.size()));
			call.addAll(keys);
			call.addAll(lean ? layout.leanArguments(1) : layout.arguments("acquire", 1, 0, 1, Refund.NONE, Refund.NONE));
			lines.add(String.join(FIELD_SEPARATOR, call));
			if (lean) {
				write(directory.resolve("script-" + name + ".lua"), BucketScript.leanSource(layout.leanAlgorithm()));
			}
		});
		Files.write(directory.resolve("calls.tsv"), lines, StandardCharsets.UTF_8);
	}

	private static void write(Path file, String text) {
		try {
			Files.writeString(file, text, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write " + file, ex);
		}
	}

}
