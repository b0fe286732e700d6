package dev.ratelimit.store.redis;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.policy.Tier;
import dev.ratelimit.store.BucketId;
import dev.ratelimit.support.MonotonicClock;
import dev.ratelimit.testsupport.TestPolicies;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures how long the first decisions of a just-started node wait on Redis, which is
 * what {@code ratelimit.redis.timeout} bounds: each run starts a fresh Redis and a fresh
 * JVM that opens its connection as the store does at start-up, either only the
 * connection (as before the warm-up) or the whole warm-up, then sends
 * {@value #BURSTS} bursts of {@value #BURST} concurrent decisions, a new client of a
 * limit of 10 for each burst, as in the two-gateway trial of issue 20. The decision
 * timeout is a minute, so that every decision is timed to its answer, none cut short.
 * Each mode runs {@value #RUNS} times on an idle machine and as often with a thread of
 * this JVM spinning on one core; prints the numbers {@code docs/benchmarks.md} quotes.
 * Asserts behaviour only, never time. Run it with
 * {@code ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure test-compile exec:exec@start-up-latency}.
 */
public final class StartUpLatencyMeasurement {

	private static final int RUNS = 5;

	private static final int BURSTS = 25;

	private static final int BURST = 40;

	private static final Tier TIER = TestPolicies.tier("anonymous", new FixedWindow(10, Duration.ofMinutes(1)));

	private StartUpLatencyMeasurement() {
	}

	public static void main(String[] arguments) throws Exception {
		for (int spinners : new int[] { 0, 1, 3 }) {
			for (String mode : new String[] { "connection only", "warm-up" }) {
				measure(mode, spinners);
			}
		}
	}

	private static void measure(String mode, int spinners) throws Exception {
		List<Long> all = new ArrayList<>();
		List<Long> firstBurstMaxima = new ArrayList<>();
		List<Long> connections = new ArrayList<>();
		List<Long> warmUps = new ArrayList<>();
		for (int run = 0; run < RUNS; run++) {
			AtomicBoolean spinning = new AtomicBoolean(true);
			List<Thread> threads = new ArrayList<>();
			for (int i = 0; i < spinners; i++) {
				Thread spinner = new Thread(() -> {
					long spins = 0;
					while (spinning.get()) {
						spins++;
					}
					assertThat(spins).isNotNegative();
				}, "spinner-" + i);
				spinner.start();
				threads.add(spinner);
			}
			try (TestRedis redis = TestRedis.startEmbedded()) {
				List<Long> micros = child(redis.port(), mode.equals("warm-up"));
				connections.add(micros.get(0));
				warmUps.add(micros.get(1));
				List<Long> decisions = micros.subList(2, micros.size());
				assertThat(decisions).hasSize(BURSTS * BURST);
				firstBurstMaxima.add(decisions.subList(0, BURST).stream().max(Long::compare).orElseThrow());
				all.addAll(decisions);
			}
			finally {
				spinning.set(false);
				for (Thread spinner : threads) {
					spinner.join();
				}
			}
		}
		long[] sorted = all.stream().mapToLong(Long::longValue).sorted().toArray();
		System.out.printf("%-16s %-13s connection %s ms; warm-up %s ms; first burst max %s ms; all %d: p50 %.2f "
				+ "p99 %.2f p99.9 %.2f max %.2f ms%n", mode, spinners + " spinning", millis(connections),
				millis(warmUps),
				millis(firstBurstMaxima), sorted.length, at(sorted, 0.50), at(sorted, 0.99), at(sorted, 0.999),
				sorted[sorted.length - 1] / 1000.0);
	}

	private static String millis(List<Long> micros) {
		return Arrays.toString(micros.stream().mapToLong((each) -> Math.round(each / 1000.0)).toArray());
	}

	private static double at(long[] sorted, double quantile) {
		return sorted[(int) Math.ceil(quantile * sorted.length) - 1] / 1000.0;
	}

	/**
	 * The start-up step's duration, then each decision's wait, in microseconds, from a
	 * JVM of its own.
	 */
	private static List<Long> child(int port, boolean warmUp) throws IOException, InterruptedException {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				Child.class.getName(), Integer.toString(port), Boolean.toString(warmUp))
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		List<Long> micros = new ArrayList<>();
		try (BufferedReader out = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = out.readLine()) != null) {
				if (line.startsWith("micros ")) {
					micros.add(Long.parseLong(line.substring(7)));
				}
			}
		}
		assertThat(process.waitFor()).isZero();
		return micros;
	}

	/**
	 * One just-started node: its start-up step, then the bursts.
	 */
	static final class Child {

		public static void main(String[] arguments) {
			// Logback's default, without a configuration file, logs every command at DEBUG.
			((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(arguments[0])));
			factory.afterPropertiesSet();
			factory.start();
			RedisBucketStore store = new RedisBucketStore(
					new BucketScript(new ReactiveStringRedisTemplate(factory), "rl"), Duration.ofMinutes(1),
					TestStores.guard("redis", FailureMode.ALLOW, 5, Duration.ofSeconds(5)), MonotonicClock.SYSTEM,
					Duration.ofMinutes(1));
			long started = System.nanoTime();
			store.script.connection().ping().block();
			long connected = System.nanoTime();
			if (Boolean.parseBoolean(arguments[1])) {
				store.connect(List.of(TestPolicies.policy("trial", StoreType.REDIS, TIER)));
			}
			System.out.println("micros " + (connected - started) / 1000);
			System.out.println("micros " + (System.nanoTime() - connected) / 1000);
			for (int burst = 0; burst < BURSTS; burst++) {
				String client = "client-" + burst;
				List<Long> waits = Flux.range(0, BURST).flatMap((request) -> timed(store, client)).collectList().block();
				waits.forEach((wait) -> System.out.println("micros " + wait));
			}
			factory.destroy();
		}

		private static Mono<Long> timed(RedisBucketStore store, String client) {
			return Mono.defer(() -> {
				long started = System.nanoTime();
				return store.acquire(new BucketId("trial", TIER.name(), client), TIER, 1).map((Verdict verdict) -> {
					if (verdict.fallback()) {
						throw new IllegalStateException("decided by on-failure: " + verdict);
					}
					return (System.nanoTime() - started) / 1000;
				});
			});
		}

	}

}
