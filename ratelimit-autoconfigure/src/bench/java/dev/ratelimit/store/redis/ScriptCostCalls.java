package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
 * {@link ScriptAssembler} assembles them, and one {@code acquire} call per algorithm on
 * one hot bucket of a tier of one limit, with the script, keys and arguments
 * {@link BucketScript} and {@link RedisLayout} choose for it: the limit's lean
 * script. Each limit's quota outlasts any run, so every call is admitted and writes,
 * as {@code RedisRateLimiter}'s calls do in the same script.
 * <p>
 * The sliding window log, whose state grows with its limit, is called three ways: a log
 * that only grows (nothing expires within a run: tens of thousands of entries); a log
 * in its steady state, a window so short (2 ms, 20 ms) that every call expires about one
 * entry as it adds one, as with a client at its limit (docs/benchmarks.md gives the sizes
 * this reaches); and a log full at 1,000 entries that rejects every call after its first
 * thousand.
 * <p>
 * Each algorithm with a lean script is also called as a shared call takes it: the
 * requests of {@link #SHARED} clients of one bucket judged in order in one call, named
 * {@code <algorithm>-shared-<n>}, so that the cost per decision of a hot key shared by
 * concurrent requests is measured beside the cost of a call of one.
 * <p>
 * Writes {@code script.lua} (the generic script), {@code script-<call>.lua} for each
 * call that takes a script of its own, and {@code calls.tsv} (per line: the call's
 * name, then the {@code EVALSHA} arguments after the SHA, separated by
 * {@link #FIELD_SEPARATOR}) into the directory given as the first argument. With
 * {@code generic} as the second, every call takes the generic script, as every call
 * did before the lean scripts (as the sliding window log's did before its own), so
 * that one run measures both.
 */
public final class ScriptCostCalls {

	/**
	 * ASCII's unit separator: not white space, so that a shell reading the fields keeps
	 * an empty one.
	 */
	static final String FIELD_SEPARATOR = "\u001f";

	/** The requests a measured shared call judges. */
	static final int SHARED = 16;

	private ScriptCostCalls() {
	}

	public static void main(String[] args) throws IOException {
		if (args.length < 1 || args.length > 2 || (args.length == 2 && !args[1].equals("generic"))) {
			throw new IllegalArgumentException("usage: ScriptCostCalls <output directory> [generic]");
		}
		boolean genericOnly = args.length == 2;
		Path directory = Files.createDirectories(Path.of(args[0]));
		write(directory.resolve("script.lua"), ScriptAssembler.generic());
		Duration second = Duration.ofSeconds(1);
		Duration minute = Duration.ofMinutes(1);
		Map<String, Limit> limits = new LinkedHashMap<>();
		limits.put("token-bucket", new TokenBucket(1_000_000, 1_000_000, second));
		limits.put("fixed-window", new FixedWindow(100_000_000, minute));
		limits.put("sliding-window-counter", new SlidingWindowCounter(100_000_000, minute));
		limits.put("leaky-bucket", new LeakyBucket(1_000_000, 1_000_000, second));
		limits.put("sliding-window-log", new SlidingWindowLog(100_000_000, minute));
		limits.put("sliding-window-log-steady-2ms", new SlidingWindowLog(100_000_000, Duration.ofMillis(2)));
		limits.put("sliding-window-log-steady-20ms", new SlidingWindowLog(100_000_000, Duration.ofMillis(20)));
		limits.put("sliding-window-log-full-1000", new SlidingWindowLog(1_000, minute));
		List<String> lines = new ArrayList<>();
		limits.forEach((name, limit) -> {
			RedisLayout layout = new RedisLayout("ratelimit", "script-cost", new Tier("default", List.of(limit)));
			boolean lean = !genericOnly && layout.leanAlgorithm() != null;
			List<String> keys = lean ? layout.leanKeys("203.0.113.7") : layout.keys("203.0.113.7");
			List<String> call = new ArrayList<>();
			call.add(name);
			call.add(Integer.toString(keys.size()));
			call.addAll(keys);
			call.addAll(lean ? layout.leanArguments(1) : layout.arguments("acquire", 1, 0, 1, Refund.NONE, Refund.NONE,
					SlotLease.of(Duration.ofMinutes(1))));
			lines.add(String.join(FIELD_SEPARATOR, call));
			if (lean) {
				write(directory.resolve("script-" + name + ".lua"), ScriptAssembler.lean(layout.leanLimit()));
				if (!name.contains("-steady-") && !name.contains("-full-")) {
					String shared = name + "-shared-" + SHARED;
					long[] costs = new long[SHARED];
					Arrays.fill(costs, 1);
					List<String> sharedCall = new ArrayList<>(call.subList(0, 2 + keys.size()));
					sharedCall.set(0, shared);
					sharedCall.addAll(layout.leanArguments(costs, 0));
					lines.add(String.join(FIELD_SEPARATOR, sharedCall));
					write(directory.resolve("script-" + shared + ".lua"),
							ScriptAssembler.lean(layout.leanLimit()));
				}
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
