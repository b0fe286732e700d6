package dev.ratelimit.store.redis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.LeakyBucket;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.SlidingWindowLog;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.Tier;

/**
 * How one tier of one policy is laid out in Redis, computed once: the key prefix of
 * its buckets and the script arguments describing its limits. Every key of a bucket
 * carries the same hash tag, {@code {<policy>:<tier>:<client key>}}, so that a bucket
 * lives in one Redis Cluster slot and one script can update it atomically.
 */
final class TierLayout {

	/**
	 * Script arguments before the limits' own: mode, cost, idle-ms, want, refund,
	 * refund-at, requests.
	 */
	static final int FIXED_ARGUMENTS = 7;

	private final Tier tier;

	private final String keyPrefix;

	private final String[] keySuffixes;

	private final List<String> limitArguments;

	private final String idleMillis;

	TierLayout(String prefix, String policy, Tier tier) {
		this.tier = tier;
		this.keyPrefix = prefix + ":{" + policy + ":" + tier.name() + ":";
		List<Limit> limits = tier.limits();
		this.keySuffixes = new String[limits.size() + 1];
		List<String> arguments = new ArrayList<>(limits.size() * 4);
		for (int i = 0; i < limits.size(); i++) {
			this.keySuffixes[i] = "}:" + (i + 1);
			addArguments(arguments, limits.get(i));
		}
		this.keySuffixes[limits.size()] = "}:m";
		this.limitArguments = Collections.unmodifiableList(arguments);
		this.idleMillis = Long.toString(Math.max(1, ceilMillis(tier.idleTimeout().toNanos())));
	}

	Tier tier() {
		return this.tier;
	}

	/**
	 * The bucket's keys: one per limit, in the tier's order, then its meta hash.
	 */
	List<String> keys(String clientKey) {
		String[] keys = new String[this.keySuffixes.length];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = this.keyPrefix + clientKey + this.keySuffixes[i];
		}
		return List.of(keys);
	}

	/**
	 * The meta key, whose presence means the bucket is live.
	 */
	String metaKey(String clientKey) {
		return this.keyPrefix + clientKey + this.keySuffixes[this.keySuffixes.length - 1];
	}

	/**
	 * The client key of this tier's meta key, or {@code null} when it is another
	 * tier's.
	 */
	String clientKeyOf(String metaKey) {
		String suffix = this.keySuffixes[this.keySuffixes.length - 1];
		if (!metaKey.startsWith(this.keyPrefix) || !metaKey.endsWith(suffix)
				|| metaKey.length() < this.keyPrefix.length() + suffix.length()) {
			return null;
		}
		return metaKey.substring(this.keyPrefix.length(), metaKey.length() - suffix.length());
	}

	List<String> arguments(String mode, long cost, long want, long refund, long refundAt, long requests) {
		List<String> arguments = new ArrayList<>(FIXED_ARGUMENTS + this.limitArguments.size());
		arguments.add(mode);
		arguments.add(Long.toString(cost));
		arguments.add(this.idleMillis);
		arguments.add(Long.toString(want));
		arguments.add(Long.toString(refund));
		arguments.add(Long.toString(refundAt));
		arguments.add(Long.toString(requests));
		arguments.addAll(this.limitArguments);
		return arguments;
	}

	private static void addArguments(List<String> arguments, Limit limit) {
		// Periods go in microseconds, Redis TIME's unit, as exact decimals so that no
		// configured duration is rounded.
		if (limit instanceof FixedWindow fixed) {
			add(arguments, 1, fixed.limit(), fixed.window().toNanos(), 0);
		}
		else if (limit instanceof SlidingWindowLog log) {
			add(arguments, 2, log.limit(), log.window().toNanos(), 0);
		}
		else if (limit instanceof SlidingWindowCounter counter) {
			add(arguments, 3, counter.limit(), counter.window().toNanos(), 0);
		}
		else if (limit instanceof TokenBucket bucket) {
			add(arguments, 4, bucket.capacity(), bucket.refillPeriod().toNanos(), bucket.refillRate());
		}
		else if (limit instanceof LeakyBucket bucket) {
			add(arguments, 5, bucket.capacity(), bucket.drainPeriod().toNanos(), bucket.drainRate());
		}
	}

	private static void add(List<String> arguments, int algorithm, long quota, long periodNanos, double rate) {
		arguments.add(Integer.toString(algorithm));
		arguments.add(Long.toString(quota));
		arguments.add(Double.toString(periodNanos / 1000.0));
		arguments.add(Double.toString(rate));
	}

	private static long ceilMillis(long nanos) {
		return (nanos + 999_999) / 1_000_000;
	}

}
