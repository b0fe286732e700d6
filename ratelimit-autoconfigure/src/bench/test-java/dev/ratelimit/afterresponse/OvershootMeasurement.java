package dev.ratelimit.afterresponse;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.shaping.EmbeddedRedis;
import dev.ratelimit.shaping.Gateway;

/**
 * How far {@code cost-from-response} lets a client past its quota (issue 23): N
 * concurrent clients of one key, each sending its next request as soon as the last is
 * answered (after 1 ms when refused), for {@value #PERIODS} refill periods, against a
 * token bucket of {@value #CAPACITY} tokens refilled at {@value #CAPACITY} per
 * {@value #PERIOD_SECONDS} s, whose requests take an estimate of {@value #ESTIMATE} on
 * admission and are charged what the upstream reports, uniform from 1 to
 * {@value #MAX_COST}, in a header or a JSON body, {@value #DELAY_MILLIS} ms after they
 * arrive. The overshoot of a round is the largest, over the windows from its start to
 * the end of each refill period, of the tokens the admitted requests sent in it were
 * charged (as the responses report them) beyond what the bucket had to give: its
 * capacity and its refill since the start. The stated bound is N x (largest cost -
 * estimate). On one gateway with the Caffeine store and one with the Redis store
 * (embedded Redis). Fails on wrong behaviour (an answer neither 200 nor 429, the
 * upstream's count not the clients'), never on time. Prints the rows
 * docs/benchmarks.md quotes. Run it with
 * {@code ./mvnw -B -q -Pbench -pl ratelimit-autoconfigure test-compile exec:exec@after-response-overshoot}.
 */
public final class OvershootMeasurement {

	static final long CAPACITY = 20_000;

	static final int PERIOD_SECONDS = 2;

	static final int PERIODS = 3;

	static final long ESTIMATE = 100;

	static final long MAX_COST = 1_000;

	static final int DELAY_MILLIS = 10;

	private static final int[] CLIENTS = { 1, 4, 16, 64 };

	private static final int ROUNDS = 3;

	private static final List<String> SOURCES = List.of("header", "json");

	private static final Pattern TOTAL_TOKENS = Pattern.compile("\"total_tokens\":(\\d+)");

	private OvershootMeasurement() {
	}

	public static void main(String[] arguments) throws Exception {
		List<String> rows = new ArrayList<>();
		try (CostUpstream upstream = new CostUpstream(MAX_COST, Duration.ofMillis(DELAY_MILLIS), 512)) {
			try (Gateway gateway = Gateway.start(policies("caffeine", upstream).list())) {
				measure("caffeine", gateway, upstream, rows);
			}
			try (EmbeddedRedis redis = new EmbeddedRedis();
					Gateway gateway = Gateway.start(policies("redis", upstream).redis(redis.port()).list())) {
				measure("redis", gateway, upstream, rows);
			}
		}
		System.out.println();
		System.out.println("| store | cost in | clients N | overshoot, each round (tokens) | largest | N x (mean cost - estimate) | bound N x (C - E) | largest / bound | admitted, refused per round |");
		System.out.println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
		rows.forEach(System.out::println);
	}

	private static Policies policies(String store, CostUpstream upstream) {
		Policies policies = Policies.on(store);
		for (String source : SOURCES) {
			String from = source.equals("header") ? "header:" + CostUpstream.COST_HEADER : "json:/usage/total_tokens";
			policies.route(source, upstream.uri(), ESTIMATE, from, CAPACITY, CAPACITY, PERIOD_SECONDS + "s");
		}
		return policies;
	}

	private static void measure(String store, Gateway gateway, CostUpstream upstream, List<String> rows)
			throws InterruptedException {
		HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		String base = "http://127.0.0.1:" + gateway.port() + "/";
		// Each warm-up request a key of its own, a full bucket: the admitted path compiled.
		for (String source : SOURCES) {
			run(client, base + source + "/r", source, 16, Duration.ofSeconds(3), "warm-" + store + "-");
		}
		double meanCost = (1 + MAX_COST) / 2.0;
		for (String source : SOURCES) {
			for (int n : CLIENTS) {
				long[] overshoots = new long[ROUNDS];
				StringBuilder counts = new StringBuilder();
				for (int round = 0; round < ROUNDS; round++) {
					long reportedBefore = upstream.reported();
					long responsesBefore = upstream.responses();
					Run run = run(client, base + source + "/r", source, n,
							Duration.ofSeconds(PERIOD_SECONDS * PERIODS), store + "-" + source + "-" + n + "-" + round);
					if (upstream.responses() - responsesBefore != run.admitted().size()
							|| upstream.reported() - reportedBefore != run.charged()) {
						throw new IllegalStateException("the upstream reported " + (upstream.reported() - reportedBefore)
								+ " tokens in " + (upstream.responses() - responsesBefore)
								+ " responses, the clients were answered " + run.charged() + " in " + run.admitted().size());
					}
					overshoots[round] = run.overshoot();
					counts.append((round > 0) ? "; " : "").append(run.admitted().size()).append(", ").append(run.refused());
					System.out.printf(Locale.ROOT, "%s %s N=%d round %d: overshoot %d (windows %s), %d admitted, %d refused%n",
							store, source, n, round + 1, run.overshoot(), Arrays.toString(run.windows()), run.admitted().size(),
							run.refused());
				}
				long largest = Arrays.stream(overshoots).max().orElseThrow();
				long bound = n * (MAX_COST - ESTIMATE);
				rows.add(String.format(Locale.ROOT, "| %s | %s | %d | %s | %,d | %,.0f | %,d | %.2f | %s |", store,
						source, n, String.join(", ", Arrays.stream(overshoots).mapToObj((o) -> String.format(Locale.ROOT, "%,d", o)).toList()),
						largest, n * (meanCost - ESTIMATE), bound, (double) largest / bound, counts));
			}
		}
	}

	/**
	 * {@code clients} threads sending to {@code url} for {@code length}, all with the
	 * key {@code key}, or, for a warm-up ({@code key} ending in {@code -}), each request
	 * a key of its own.
	 */
	private static Run run(HttpClient client, String url, String source, int clients, Duration length, String key)
			throws InterruptedException {
		boolean warmUp = key.endsWith("-");
		List<long[]> admitted = new ArrayList<>();
		long[] refused = new long[1];
		CountDownLatch ready = new CountDownLatch(clients);
		CountDownLatch go = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(clients);
		long[] start = new long[1];
		RuntimeException[] failure = new RuntimeException[1];
		for (int c = 0; c < clients; c++) {
			int id = c;
			Thread thread = new Thread(() -> {
				List<long[]> mine = new ArrayList<>();
				long mineRefused = 0;
				try {
					ready.countDown();
					go.await();
					long end = start[0] + length.toNanos();
					for (int i = 0; System.nanoTime() < end; i++) {
						String who = warmUp ? key + id + "-" + i : key;
						HttpRequest request = HttpRequest.newBuilder(URI.create(url)).header("X-Client", who).build();
						long sent = System.nanoTime();
						HttpResponse<String> response = send(client, request);
						if (response.statusCode() == 429) {
							mineRefused++;
							LockSupport.parkNanos(1_000_000);
						}
						else if (response.statusCode() == 200) {
							mine.add(new long[] { sent - start[0], cost(response, source) });
						}
						else {
							throw new IllegalStateException("answered " + response.statusCode() + ": " + response.body());
						}
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				catch (RuntimeException ex) {
					synchronized (failure) {
						failure[0] = ex;
					}
				}
				finally {
					synchronized (admitted) {
						admitted.addAll(mine);
						refused[0] += mineRefused;
					}
					done.countDown();
				}
			}, "overshoot-client-" + c);
			thread.setDaemon(true);
			thread.start();
		}
		ready.await();
		start[0] = System.nanoTime();
		go.countDown();
		done.await();
		synchronized (failure) {
			if (failure[0] != null) {
				throw failure[0];
			}
		}
		return new Run(admitted, refused[0]);
	}

	private static HttpResponse<String> send(HttpClient client, HttpRequest request) {
		try {
			return client.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new IllegalStateException("a request to " + request.uri() + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static long cost(HttpResponse<String> response, String source) {
		if (source.equals("header")) {
			return Long.parseLong(response.headers().firstValue(CostUpstream.COST_HEADER).orElseThrow());
		}
		Matcher matcher = TOTAL_TOKENS.matcher(response.body());
		if (!matcher.find()) {
			throw new IllegalStateException("no total_tokens in " + response.body());
		}
		return Long.parseLong(matcher.group(1));
	}

	/**
	 * A round's admitted requests, as (nanoseconds after the start they were sent, the
	 * cost their response reported), and how many were refused.
	 */
	record Run(List<long[]> admitted, long refused) {

		long charged() {
			return this.admitted.stream().mapToLong((request) -> request[1]).sum();
		}

		long[] windows() {
			long[] windows = new long[PERIODS];
			for (int k = 1; k <= PERIODS; k++) {
				long end = Duration.ofSeconds((long) PERIOD_SECONDS * k).toNanos();
				long charged = this.admitted.stream().filter((r) -> r[0] < end).mapToLong((r) -> r[1]).sum();
				windows[k - 1] = charged - (CAPACITY + CAPACITY * k);
			}
			return windows;
		}

		long overshoot() {
			return Arrays.stream(windows()).max().orElseThrow();
		}

	}

}
