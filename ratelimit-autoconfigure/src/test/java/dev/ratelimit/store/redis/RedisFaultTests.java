package dev.ratelimit.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.store.BucketSnapshot;
import dev.ratelimit.store.BucketStore;
import dev.ratelimit.store.hybrid.HybridBucketStore;
import dev.ratelimit.testsupport.TestPolicies;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Redis that stops answering (a network partition, a hung server: connections stay
 * open, nothing comes back), Redis restarted under traffic, and a hybrid node shutting
 * down: every request is answered within the timeout and a margin, as
 * {@code on-failure} says, and limiting resumes without restarting anything.
 * <p>
 * Clients here use Lettuce's defaults (a minute to time out a command, the connection's
 * handshake included), as an application that sets no {@code spring.data.redis.timeout}
 * does: only the store's own timeout bounds a decision.
 */
class RedisFaultTests {

	private static final Duration TIMEOUT = Duration.ofMillis(250);

	/**
	 * Far above the timeout on a loaded machine, far below a blocked connection's
	 * minute.
	 */
	private static final long LONGEST_WAIT_MILLIS = 1500;

	private static final Tier GENEROUS = TestPolicies.tier("free", new FixedWindow(1_000_000, Duration.ofDays(1)));

	private static final Tier ONE = TestPolicies.tier("one", new FixedWindow(1, Duration.ofDays(1)));

	private final TestRedis redis = TestRedis.startEmbedded();

	private final StallingProxy proxy = new StallingProxy(this.redis.port());

	private final OwnClients clients = new OwnClients();

	private final List<HybridBucketStore> hybrids = new ArrayList<>();

	/**
	 * Makes every key a test asks for a new one.
	 */
	private final AtomicInteger keys = new AtomicInteger();

	@AfterEach
	void close() {
		this.proxy.close();
		this.hybrids.forEach(HybridBucketStore::stop);
		this.clients.close();
		this.redis.close();
	}

	static Stream<Arguments> storesAndModes() {
		return Stream.of(Arguments.of("redis", FailureMode.ALLOW), Arguments.of("redis", FailureMode.DENY),
				Arguments.of("redis", FailureMode.LOCAL), Arguments.of("hybrid", FailureMode.DENY),
				Arguments.of("hybrid", FailureMode.LOCAL));
	}

	/**
	 * The first request opens the connection: against a Redis that does not answer, it
	 * must neither wait for Lettuce's minute nor block the thread that sent it, which
	 * in a gateway is an event loop serving other requests.
	 */
	@ParameterizedTest
	@MethodSource("storesAndModes")
	void firstRequestsWhileRedisDoesNotAnswerAreDecidedWithinTheTimeout(String storeName, FailureMode mode) {
		this.proxy.stall();
		BucketStore store = store(storeName, mode);
		for (int i = 0; i < 5; i++) {
			AtomicReference<Verdict> answer = new AtomicReference<>();
			CompletableFuture<Verdict> done = new CompletableFuture<>();
			long started = System.nanoTime();
			store.acquire(new BucketId("orders", "free", "first-" + i), GENEROUS, 1).subscribe(done::complete,
					done::completeExceptionally);
			long subscribedMillis = Duration.ofNanos(System.nanoTime() - started).toMillis();
			assertThat(subscribedMillis).as("time the sending thread was held").isLessThan(LONGEST_WAIT_MILLIS);
			answer.set(done.orTimeout(LONGEST_WAIT_MILLIS, TimeUnit.MILLISECONDS).join());
			assertThat(answer.get().fallback()).isTrue();
			assertThat(answer.get().allowed()).isEqualTo(mode != FailureMode.DENY);
		}
		this.proxy.resume();
		assertRecovers(store);
	}

	/**
	 * Until its first PING has answered or failed, a health check says so rather than
	 * reporting a failed PING that never happened.
	 */
	@Test
	void healthTellsAPingNotYetAnsweredFromAFailedOne() {
		this.proxy.stall();
		BucketStore store = store("redis", FailureMode.ALLOW);
		assertThat(store.health().details()).containsEntry("pingMicros", "pending");
		Pause.untilRecovered("the stalled PING reported failed",
				() -> "failed".equals(store.health().details().get("pingMicros")));
	}

	@ParameterizedTest
	@MethodSource("storesAndModes")
	void aStallUnderTrafficIsAnsweredPerOnFailureAndLimitingResumes(String storeName, FailureMode mode)
			throws Exception {
		BucketStore store = store(storeName, mode);
		assertRecovers(store);
		Traffic traffic = Traffic.start(store, GENEROUS, 16, 2500);
		Pause.sleep(500);
		this.proxy.stall();
		Pause.sleep(1000);
		this.proxy.resume();
		traffic.assertAllAnsweredWithin(LONGEST_WAIT_MILLIS);
		// The stall was seen and decided by on-failure, never as an error.
		assertThat(traffic.verdicts()).anyMatch(Verdict::fallback);
		assertThat(traffic.verdicts()).filteredOn(Verdict::fallback)
			.allMatch((verdict) -> verdict.allowed() == (mode != FailureMode.DENY));
		assertRecovers(store);
	}

	@Test
	void redisRestartedUnderTrafficIsAnsweredPerOnFailureAndLimitingResumes() throws Exception {
		BucketStore store = store("redis", FailureMode.ALLOW);
		assertRecovers(store);
		Traffic traffic = Traffic.start(store, GENEROUS, 16, 3000);
		Pause.sleep(500);
		this.redis.stop();
		Pause.sleep(1000);
		this.redis.restart();
		traffic.assertAllAnsweredWithin(LONGEST_WAIT_MILLIS);
		assertThat(traffic.verdicts()).anyMatch(Verdict::fallback).allMatch(Verdict::allowed);
		assertRecovers(store);
	}

	/**
	 * A node shutting down between syncs gives back the units it leased and did not
	 * use, and reports the requests it judged alone: the fleet loses neither quota nor
	 * counts in a rolling restart.
	 */
	@Test
	void aHybridNodeShuttingDownFlushesWhatItHoldsToRedis() {
		Tier tier = TestPolicies.tier("free", new FixedWindow(10, Duration.ofDays(1)));
		RateLimitPolicy policy = TestPolicies.policy("orders", StoreType.HYBRID, tier);
		// No sync runs during the test: only stopping can flush.
		HybridBucketStore node = hybrid(this.redis.port(), Duration.ofHours(1), FailureMode.DENY);
		BucketId id = new BucketId("orders", "free", "rolling");
		long admitted = Flux.range(0, 4).concatMap((i) -> node.acquire(id, tier, 1)).filter(Verdict::allowed).count()
			.block();
		assertThat(admitted).isEqualTo(4);
		BucketSnapshot beforeStop = node.bucket(policy, "rolling").blockFirst();
		assertThat(beforeStop.requests()).as("requests Redis knows of before the flush").isLessThan(4);
		node.stop();
		BucketSnapshot afterStop = node.bucket(policy, "rolling").blockFirst();
		assertThat(afterStop.requests()).isEqualTo(4);
		assertThat(afterStop.limits().get(0).remaining()).isEqualTo(10 - 4);
	}

	/**
	 * Stopped after the web server, so that requests drained by a graceful shutdown are
	 * flushed too, and before the Redis connection factory, which the flush needs.
	 */
	@Test
	void aHybridNodeStopsBetweenTheWebServerAndTheRedisConnection() {
		int webServerStop = WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE - 1024;
		HybridBucketStore node = hybrid(this.redis.port(), Duration.ofHours(1), FailureMode.DENY);
		assertThat(node.getPhase()).isLessThan(webServerStop)
			.isGreaterThan(new LettuceConnectionFactory().getPhase());
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aHybridNodeShuttingDownWhileRedisDoesNotAnswerStopsWithinTheTimeoutAndSaysWhatItKept(CapturedOutput output) {
		HybridBucketStore node = hybrid(this.proxy.port(), Duration.ofHours(1), FailureMode.DENY);
		Tier tier = TestPolicies.tier("free", new FixedWindow(10, Duration.ofDays(1)));
		node.acquire(new BucketId("orders", "free", "stalled"), tier, 1).block();
		this.proxy.stall();
		long started = System.nanoTime();
		assertThatNoException().isThrownBy(node::stop);
		assertThat(Duration.ofNanos(System.nanoTime() - started).toMillis()).isLessThan(LONGEST_WAIT_MILLIS);
		assertThat(output).contains("Rate limit store 'hybrid' stopped without giving back the units it leased on 1 "
				+ "of 1 buckets (Redis did not answer within twice ratelimit.redis.timeout)");
	}

	/**
	 * Within a generous time, Redis decides again; then a new key is limited.
	 */
	private void assertRecovers(BucketStore store) {
		Pause.untilRecovered("Redis decides again", () -> !store
			.acquire(new BucketId("orders", "free", "probe-" + this.keys.incrementAndGet()), GENEROUS, 1)
			.block()
			.fallback());
		assertLimited(store, "limited-" + this.keys.incrementAndGet());
	}

	/**
	 * A limit of one admits one request of a new key and rejects the next, both decided
	 * by Redis.
	 */
	private static void assertLimited(BucketStore store, String key) {
		BucketId id = new BucketId("orders", ONE.name(), key);
		Verdict first = store.acquire(id, ONE, 1).block();
		Verdict second = store.acquire(id, ONE, 1).block();
		assertThat(first.fallback()).isFalse();
		assertThat(first.allowed()).isTrue();
		assertThat(second.fallback()).isFalse();
		assertThat(second.allowed()).isFalse();
	}

	private BucketStore store(String name, FailureMode mode) {
		if (name.equals("hybrid")) {
			return hybrid(this.proxy.port(), Duration.ofMillis(100), mode);
		}
		return TestStores.redis(this.clients.template(this.proxy.port()), TIMEOUT,
				TestStores.guard("redis", mode, 3, Duration.ofMillis(300)));
	}

	private HybridBucketStore hybrid(int port, Duration syncInterval, FailureMode mode) {
		HybridBucketStore store = TestStores.hybrid(this.clients.template(port), TIMEOUT, syncInterval,
				TestStores.guard("hybrid", mode, 3, Duration.ofMillis(300)));
		this.hybrids.add(store);
		return store;
	}


}
