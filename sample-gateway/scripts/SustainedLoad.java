import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sustained load on the gateway of sustained-load.yml, and the accounting of what it
 * decided. A third of the connections hammer "hot" clients (two per policy, each shared
 * by several connections, so that their requests race in one bucket); the others are
 * "light" clients, each of their keys sending far below every limit. At the end:
 * <ul>
 * <li>every request was answered, with 200 or 429 only: no 5xx, no lost request, no
 * broken connection (an answer later than 5 s is reported, as the machine was
 * overloaded, and counted as what it was);</li>
 * <li>the gateway's ratelimit.requests metric counts, per policy, exactly the 200s and
 * 429s seen, and no error (an answer without quota headers was decided by on-failure,
 * not by the limit: it is reported, and compared with the metric's errors);</li>
 * <li>each hot client of a day-* policy was admitted exactly its quota, 50; no hot
 * client of a sec-* policy more than 20 per second of its run (and a second's burst at
 * each end), nor less than half that;</li>
 * <li>no light client was ever rejected.</li>
 * </ul>
 *
 * Compiled with LoadConnection.java by sustained-load.sh, which runs it as
 * SustainedLoad PORT CONNECTIONS SECONDS.
 * Exits 1 when any of the above does not hold.
 */
public class SustainedLoad {

	private static final String[] POLICIES = { "day-fixed", "day-log", "day-counter", "day-token", "day-leaky",
			"sec-fixed", "sec-log", "sec-counter", "sec-token", "sec-leaky" };

	private static final long DAY_QUOTA = 50;

	private static final long PER_SECOND = 20;

	private static final int HOT_CLIENTS_PER_POLICY = 2;

	/** Each light connection cycles over this many keys on each policy. */
	private static final int LIGHT_KEYS = 50;

	/** Pause between two requests of a light connection. */
	private static final long LIGHT_PAUSE_MILLIS = 100;

	/**
	 * Per policy and client key: 200s and 429s the limit decided, anything else, and
	 * answers on-failure decided (no quota headers).
	 */
	private static final Map<String, LongAdder[]> tallies = new ConcurrentHashMap<>();

	/** Per hot client: first and last time a request was sent, in nanoseconds. */
	private static final Map<String, AtomicLong[]> hotSpans = new ConcurrentHashMap<>();

	private static final AtomicLongArray latencyMillis = new AtomicLongArray(LoadConnection.LOST_AFTER_MILLIS + 1);

	private static final LongAdder timeouts = new LongAdder();

	private static final LongAdder lost = new LongAdder();

	private static final LongAdder connectionErrors = new LongAdder();

	private static final List<String> failures = new ArrayList<>();

	private static final List<String> hotUtilisation = new ArrayList<>();

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		int connections = Integer.parseInt(args[1]);
		long seconds = Long.parseLong(args[2]);
		int hotConnections = connections / 3;
		long deadline = System.nanoTime() + seconds * 1_000_000_000L;
		Thread[] threads = new Thread[connections];
		for (int c = 0; c < connections; c++) {
			int connection = c;
			Runnable work = (c < hotConnections) ? () -> hot(port, deadline, connection)
					: () -> light(port, deadline, connection);
			threads[c] = new Thread(work, "connection-" + c);
			threads[c].start();
		}
		long started = System.nanoTime();
		for (Thread thread : threads) {
			thread.join();
		}
		double elapsed = (System.nanoTime() - started) / 1e9;
		long requests = 0;
		for (LongAdder[] tally : tallies.values()) {
			requests += tally[0].sum() + tally[1].sum() + tally[2].sum() + tally[3].sum();
		}
		System.out.printf(Locale.ROOT, "connections=%d (hot %d) seconds=%.0f requests=%d requests/s=%.0f%n",
				connections, hotConnections, elapsed, requests, requests / elapsed);
		System.out.printf(Locale.ROOT, "latency ms: p50=%d p99=%d p99.9=%d max=%d%n", percentile(0.5),
				percentile(0.99), percentile(0.999), percentile(1.0));
		System.out.println("late=" + timeouts.sum() + " (answered after " + LoadConnection.READ_TIMEOUT_MILLIS + " ms) lost=" + lost.sum()
				+ " (never answered) connection errors=" + connectionErrors.sum());
		check(lost.sum() == 0, "requests never answered: " + lost.sum());
		check(connectionErrors.sum() == 0, "broken connections: " + connectionErrors.sum());
		System.out.println();
		System.out.println("policy       seen 200   seen 429  other on-failure | metric allowed  rejected  error | hot clients admitted");
		for (String policy : POLICIES) {
			account(port, policy);
		}
		System.out.println();
		hotUtilisation.forEach(System.out::println);
		System.out.println();
		failures.forEach((failure) -> System.out.println("FAILED: " + failure));
		System.out.println(failures.isEmpty()
				? "RESULT: every request answered with 200 or 429, metrics equal to what was seen, every hot client "
						+ "admitted what its limit allows, no light client rejected"
				: "RESULT: FAILED");
		System.exit(failures.isEmpty() ? 0 : 1);
	}

	private static void hot(int port, long deadline, int connection) {
		String policy = POLICIES[connection % POLICIES.length];
		String client = "hot-" + (connection / POLICIES.length) % HOT_CLIENTS_PER_POLICY;
		AtomicLong[] span = hotSpans.computeIfAbsent(policy + " " + client,
				(key) -> new AtomicLong[] { new AtomicLong(Long.MAX_VALUE), new AtomicLong(Long.MIN_VALUE) });
		send(port, deadline, (request) -> {
			long now = System.nanoTime();
			span[0].accumulateAndGet(now, Math::min);
			span[1].accumulateAndGet(now, Math::max);
			return new String[] { policy, client };
		}, 0);
	}

	private static void light(int port, long deadline, int connection) {
		send(port, deadline, (request) -> {
			long pair = request + connection;
			String policy = POLICIES[(int) (pair % POLICIES.length)];
			String client = "light-" + connection + "-" + (pair / POLICIES.length) % LIGHT_KEYS;
			return new String[] { policy, client };
		}, LIGHT_PAUSE_MILLIS);
	}

	private interface Next {

		/** The policy and client key of the n-th request. */
		String[] request(long n);

	}

	private static void send(int port, long deadline, Next next, long pauseMillis) {
		LoadConnection connection = null;
		for (long n = 0; System.nanoTime() < deadline; n++) {
			String[] request = next.request(n);
			LongAdder[] tally = tallies.computeIfAbsent(request[0] + " " + request[1],
					(key) -> new LongAdder[] { new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder() });
			try {
				if (connection == null) {
					connection = new LoadConnection(port);
				}
				long started = System.nanoTime();
				int status = connection.get("/load/" + request[0] + "/x", request[1]);
				if (status < 0) {
					timeouts.increment();
					status = connection.awaitLate();
					if (status < 0) {
						lost.increment();
						connection.close();
						connection = null;
						continue;
					}
				}
				latencyMillis.incrementAndGet((int) Math.min(LoadConnection.LOST_AFTER_MILLIS, (System.nanoTime() - started) / 1_000_000));
				if (status != 200 && status != 429) {
					tally[2].increment();
				}
				else if (!connection.quotaHeaders()) {
					// No quota headers: the store could not decide and on-failure did.
					tally[3].increment();
				}
				else {
					tally[(status == 200) ? 0 : 1].increment();
				}
				if (pauseMillis > 0) {
					Thread.sleep(pauseMillis);
				}
			}
			catch (IOException ex) {
				connectionErrors.increment();
				close(connection);
				connection = null;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
		close(connection);
	}

	/**
	 * Compares what was seen on one policy with the gateway's metrics and with what the
	 * policy's limit allows.
	 */
	private static void account(int port, String policy) throws IOException {
		long seenAllowed = 0;
		long seenRejected = 0;
		long seenOther = 0;
		long seenOnFailure = 0;
		List<String> hotAdmitted = new ArrayList<>();
		for (Map.Entry<String, LongAdder[]> entry : new TreeMap<>(tallies).entrySet()) {
			String[] policyAndClient = entry.getKey().split(" ");
			if (!policyAndClient[0].equals(policy)) {
				continue;
			}
			long allowed = entry.getValue()[0].sum();
			long rejected = entry.getValue()[1].sum();
			long onFailure = entry.getValue()[3].sum();
			seenAllowed += allowed;
			seenRejected += rejected;
			seenOther += entry.getValue()[2].sum();
			seenOnFailure += onFailure;
			if (policyAndClient[1].startsWith("hot-")) {
				hotAdmitted.add(allowed + ((onFailure > 0) ? " (+" + onFailure + " on-failure)" : ""));
				checkHot(policy, policyAndClient[1], allowed);
			}
			else {
				check(rejected == 0, policy + " light client " + policyAndClient[1] + " rejected " + rejected + " times");
			}
		}
		long metricAllowed = metric(port, policy, "allowed");
		long metricRejected = metric(port, policy, "rejected");
		long metricError = metric(port, policy, "error");
		System.out.printf(Locale.ROOT, "%-11s %9d %10d %6d %10d | %14d %9d %6d | %s%n", policy, seenAllowed,
				seenRejected, seenOther, seenOnFailure, metricAllowed, metricRejected, metricError,
				String.join(", ", hotAdmitted));
		check(seenOther == 0, policy + ": " + seenOther + " answers neither 200 nor 429");
		check(metricAllowed == seenAllowed, policy + ": metric allowed " + metricAllowed + ", seen " + seenAllowed);
		check(metricRejected == seenRejected, policy + ": metric rejected " + metricRejected + ", seen " + seenRejected);
		check(metricError == seenOnFailure, policy + ": metric error " + metricError + ", seen " + seenOnFailure);
		check(seenOnFailure == 0, policy + ": " + seenOnFailure + " requests decided by on-failure, not by the limit");
	}

	private static void checkHot(String policy, String client, long admitted) {
		if (policy.startsWith("day-")) {
			check(admitted == DAY_QUOTA, policy + " " + client + " admitted " + admitted + ", its quota is " + DAY_QUOTA);
			return;
		}
		AtomicLong[] span = hotSpans.get(policy + " " + client);
		double seconds = (span[1].get() - span[0].get()) / 1e9;
		// At most 20 a second, plus a second's worth for a burst or a window straddled at
		// each end; the gateway saw the requests over a span up to the slowest answer longer.
		double most = PER_SECOND * (seconds + percentile(1.0) / 1000.0 + 2);
		double utilisation = admitted / (PER_SECOND * seconds);
		hotUtilisation.add(String.format(Locale.ROOT, "%s %s: %d over %.1f s, %.0f%% of 20/s", policy, client,
				admitted, seconds, 100 * utilisation));
		check(admitted <= most, String.format(Locale.ROOT, "%s %s admitted %d over %.1f s, more than %.0f", policy,
				client, admitted, seconds, most));
		// Under that only when the client could not keep it busy (pauses of a loaded machine):
		// far under means the limiter starves it.
		check(utilisation >= 0.5, String.format(Locale.ROOT, "%s %s admitted %d over %.1f s, under half of 20/s",
				policy, client, admitted, seconds));
	}

	private static final Pattern COUNT = Pattern.compile("\"statistic\":\"COUNT\",\"value\":([0-9.E]+)");

	private static long metric(int port, String policy, String outcome) throws IOException {
		try (LoadConnection connection = new LoadConnection(port)) {
			String body = connection.getBody("/actuator/metrics/ratelimit.requests?tag=policy:" + policy
					+ "&tag=outcome:" + outcome);
			if (body == null) {
				return 0;
			}
			Matcher count = COUNT.matcher(body);
			return count.find() ? (long) Double.parseDouble(count.group(1)) : 0;
		}
	}

	private static void check(boolean holds, String failure) {
		if (!holds) {
			synchronized (failures) {
				failures.add(failure);
			}
		}
	}

	private static long percentile(double fraction) {
		long total = 0;
		for (int i = 0; i < latencyMillis.length(); i++) {
			total += latencyMillis.get(i);
		}
		long rank = (long) Math.ceil(fraction * total);
		long seen = 0;
		for (int i = 0; i < latencyMillis.length(); i++) {
			seen += latencyMillis.get(i);
			if (seen >= rank && seen > 0) {
				return i;
			}
		}
		return 0;
	}

	private static void close(LoadConnection connection) {
		if (connection != null) {
			try {
				connection.close();
			}
			catch (IOException ex) {
				// closing a broken connection: nothing left to do with it
			}
		}
	}

}
