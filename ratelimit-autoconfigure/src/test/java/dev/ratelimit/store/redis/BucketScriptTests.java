package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Limit;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.policy.Tier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Smoke test of the script's plumbing: arguments in, decisions out.
 */
class BucketScriptTests {

	private static TestRedis redis;

	private BucketScript script;

	@BeforeAll
	static void startRedis() {
		redis = TestRedis.start();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@BeforeEach
	void flush() {
		redis.flushAll();
		this.script = new BucketScript(redis.template(), "rl");
	}

	@Test
	void fixedWindowAdmitsItsLimitThenRejects() {
		Tier tier = tier(new FixedWindow(3, Duration.ofHours(1)));
		TierLayout layout = this.script.layout("orders", tier);
		for (int i = 0; i < 3; i++) {
			Decision decision = this.script.acquire(layout, "alice", 1).block()[0];
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(2 - i);
		}
		Decision rejected = this.script.acquire(layout, "alice", 1).block()[0];
		assertThat(rejected.allowed()).isFalse();
		assertThat(rejected.retryAfterNanos()).isPositive().isLessThanOrEqualTo(Duration.ofHours(1).toNanos());
	}

	@Test
	void tokenBucketStartsFull() {
		Tier tier = tier(new TokenBucket(10, 2, Duration.ofSeconds(1)));
		Decision decision = this.script.acquire(this.script.layout("orders", tier), "bob", 1).block()[0];
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(9);
	}

	private static Tier tier(Limit... limits) {
		return new Tier("free", List.of(limits));
	}

}
