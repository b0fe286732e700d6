package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStore;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.store.hybrid.HybridBucketStore;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.testsupport.TestPolicies;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.data.redis.core.ScanOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys a client chooses (header values, principal names) that look like key syntax,
 * glob patterns, binary or Unicode: in every store each gets a bucket of its own, none
 * reaches another client's, another tier's or another policy's bucket, and the read
 * side lists, finds and resets exactly the buckets it names.
 */
class HostileKeysTests {

	@RegisterExtension
	static final SharedRedis redis = new SharedRedis();

	/**
	 * Keys that mean something to Redis key layout, hash tags, globs or the escaping
	 * itself, and binary, Unicode and long ones.
	 */
	static final List<String> HOSTILE = List.of("victim", "victim}", "victim}:1", "victim}:m", "{victim}", "}", "{",
			"*", "?", "[a-z]*", "vic?im", "v[i]ctim", "victim*", "\\", "\\*", "%", "%7D", "%7d", "%%", "x:y",
			"free:victim", "victim:x", ":", "::", "\u0000", "\r\n", "\t", "\u007f", "ключ", "🔑", "\u00ff\u00fe", " ",
			"sha256:" + "0".repeat(64), "k".repeat(64), "k".repeat(65), "k".repeat(5000), "🔑".repeat(40));

	/**
	 * One request a day per bucket: a second request proves the first was counted in
	 * the same bucket.
	 */
	private static final Tier FREE = TestPolicies.tier("free", new FixedWindow(1, Duration.ofDays(1)));

	/**
	 * A tier whose name holds a ':': with unescaped parts, key {@code x} in it and key
	 * {@code free:x}... in tier {@code free} would share Redis keys.
	 */
	private static final Tier FREE_VICTIM = TestPolicies.tier("free:victim",
			new TokenBucket(1, 1, Duration.ofDays(1)));

	private static final RateLimitPolicy ORDERS = new RateLimitPolicy("orders", new KeySource.Header("X-Client"),
			false, 1, StoreType.REDIS, Map.of("free", FREE, "free:victim", FREE_VICTIM), FREE);

	private static final RateLimitPolicy ORDERS_GLOB = TestPolicies.policy("ord*", StoreType.REDIS, FREE);

	private final List<BucketStore> stores = new ArrayList<>();

	@AfterEach
	void stopStores() {
		for (BucketStore store : this.stores) {
			if (store instanceof HybridBucketStore hybrid) {
				hybrid.stop();
			}
		}
	}

	static Stream<String> storeNames() {
		return Stream.of("caffeine", "redis", "hybrid");
	}

	@ParameterizedTest
	@MethodSource("storeNames")
	void everyHostileKeyHasABucketOfItsOwn(String storeName) {
		BucketStore store = store(storeName);
		for (String key : HOSTILE) {
			assertThat(acquire(store, "orders", FREE, key)).as("first request of %s", printable(key)).isTrue();
		}
		for (String key : HOSTILE) {
			assertThat(acquire(store, "orders", FREE, key)).as("second request of %s", printable(key)).isFalse();
		}
		// Same keys in another tier and in another policy: untouched quotas.
		for (String key : List.of("victim", "x", "*")) {
			assertThat(acquire(store, "orders", FREE_VICTIM, key)).as("tier free:victim, %s", key).isTrue();
			assertThat(acquire(store, "ord*", FREE, key)).as("policy ord*, %s", key).isTrue();
		}
	}

	@ParameterizedTest
	@MethodSource("storeNames")
	void theReadSideFindsListsAndResetsExactlyTheBucketsItNames(String storeName) {
		BucketStore store = store(storeName);
		for (String key : HOSTILE) {
			acquire(store, "orders", FREE, key);
		}
		acquire(store, "orders", FREE_VICTIM, "x");
		acquire(store, "ord*", FREE, "victim");
		Set<String> listed = new HashSet<>();
		for (BucketSnapshot bucket : store.buckets(ORDERS).collectList().block()) {
			listed.add(bucket.id().tier() + "|" + bucket.id().key());
		}
		Set<String> expected = new HashSet<>();
		HOSTILE.forEach((key) -> expected.add("free|" + BucketId.storedKey(key)));
		expected.add("free:victim|x");
		assertThat(listed).isEqualTo(expected);
		assertThat(store.buckets(ORDERS_GLOB).collectList().block()).extracting((bucket) -> bucket.id().key())
			.containsExactly("victim");
		for (String glob : List.of("*", "?", "[a-z]*", "victim*", "\\*", "}", "%")) {
			assertThat(store.bucket(ORDERS, glob).collectList().block()).as(glob)
				.extracting((bucket) -> bucket.id().key())
				.containsExactly(glob);
		}
		assertThat(store.reset(ORDERS, "*").block()).isTrue();
		assertThat(store.reset(ORDERS, "*").block()).isFalse();
		assertThat(store.bucket(ORDERS, "*").collectList().block()).isEmpty();
		assertThat(store.bucket(ORDERS, "victim").collectList().block()).hasSize(1);
		assertThat(store.bucket(ORDERS_GLOB, "victim").collectList().block()).hasSize(1);
		assertThat(store.buckets(ORDERS).count().block()).isEqualTo(expected.size() - 1);
		assertThat(acquire(store, "orders", FREE, "*")).isTrue();
		assertThat(acquire(store, "orders", FREE, "victim")).isFalse();
	}

	@Test
	void everyRedisKeyOfABucketCarriesTheWholeEscapedKeyAsItsHashTag() {
		BucketStore store = store("redis");
		for (String key : HOSTILE) {
			acquire(store, "orders", FREE, key);
		}
		// The policy's keys, not those of the store's start-up warm-up.
		List<String> keys = redis.template()
			.scan(ScanOptions.scanOptions().match("rl:{orders:*").count(1000).build())
			.collectList()
			.block();
		// One bucket key each: a fixed window keeps its state in it.
		assertThat(keys).hasSize(HOSTILE.size());
		Set<String> tags = new HashSet<>();
		for (String key : keys) {
			int open = key.indexOf('{');
			int close = key.indexOf('}', open);
			String tag = key.substring(open + 1, close);
			// Nothing after the tag but the bucket key's suffix or a limit's (its position and
			// parameters): no client brace cut it short.
			assertThat(key.substring(close)).matches("}:(b2|[0-9]+(:[0-9.E]+)+)");
			assertThat(SlotHash.getSlot(key)).isEqualTo(SlotHash.getSlot(tag));
			tags.add(tag);
		}
		Set<String> expected = new HashSet<>();
		HOSTILE.forEach((key) -> expected.add("orders:free:" + RedisLayout.escape(BucketId.storedKey(key))));
		assertThat(tags).isEqualTo(expected);
	}

	private boolean acquire(BucketStore store, String policy, Tier tier, String rawKey) {
		return store.acquire(new BucketId(policy, tier.name(), BucketId.storedKey(rawKey)), tier, 1).block().allowed();
	}

	private BucketStore store(String name) {
		BucketStore store = switch (name) {
			case "caffeine" -> new CaffeineBucketStore(MonotonicClock.SYSTEM, 10_000);
			case "redis" -> TestStores.redis(redis.template(), Duration.ofSeconds(5),
					TestStores.guard("redis", FailureMode.DENY, 3, Duration.ofSeconds(1)));
			default -> TestStores.hybrid(redis.template(), Duration.ofSeconds(5), Duration.ofMillis(100),
					TestStores.guard("hybrid", FailureMode.DENY, 3, Duration.ofSeconds(1)));
		};
		this.stores.add(store);
		return store;
	}

	private static String printable(String key) {
		StringBuilder printable = new StringBuilder();
		key.codePoints().limit(40).forEach((c) -> printable.append((c < 32 || c == 127) ? String.format("\\u%04x", c)
				: new String(Character.toChars(c))));
		return printable.toString();
	}

}
