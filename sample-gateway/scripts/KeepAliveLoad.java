import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Keep-alive load on the sample gateway: every connection alternates a request the
 * gateway answers itself (a 429 from RateLimit, an actuator read, a 404) with a proxied
 * one, the traffic that lost requests on Reactor Netty 1.3.6. Each request is written
 * on a plain socket and must be answered within the read timeout; one that is not is a
 * timeout, and is then either late (answered within a minute) or lost (never answered:
 * its connection is replaced).
 *
 * Compiled with LoadConnection.java by keep-alive-load.sh, which runs it as
 * KeepAliveLoad PORT CONNECTIONS SECONDS.
 * Exits 1 when any request timed out or got a status other than the expected ones.
 */
public class KeepAliveLoad {

	/**
	 * What the gateway answers itself, with the statuses expected; each is followed by a
	 * proxied request. Orders admits its 5 anonymous requests again in each new minute.
	 */
	private static final String[][] LOCAL = { { "/api/orders/1", "429", "200" }, { "/actuator/health", "200" },
			{ "/nowhere", "404" } };

	/** The shadow-mode route: limited, never rejected, always proxied to the upstream. */
	private static final String[] PROXIED = { "/api/reports/daily", "200" };

	private static final LongAdder requests = new LongAdder();

	private static final LongAdder timeouts = new LongAdder();

	private static final LongAdder lost = new LongAdder();

	/** Latency histogram in milliseconds, the last bucket for everything slower. */
	private static final AtomicLongArray latencyMillis = new AtomicLongArray(LoadConnection.LOST_AFTER_MILLIS + 1);

	private static final LongAdder connectionErrors = new LongAdder();

	private static final Map<String, LongAdder> statuses = new ConcurrentHashMap<>();

	private static final Map<String, LongAdder> unexpected = new ConcurrentHashMap<>();

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		int connections = Integer.parseInt(args[1]);
		long seconds = Long.parseLong(args[2]);
		long deadline = System.nanoTime() + seconds * 1_000_000_000L;
		// Exhaust the anonymous orders quota, so that every request to it is a 429.
		try (LoadConnection warmUp = new LoadConnection(port)) {
			for (int i = 0; i < 5; i++) {
				warmUp.get("/api/orders/1", null);
			}
		}
		Thread[] threads = new Thread[connections];
		for (int t = 0; t < connections; t++) {
			int offset = t;
			threads[t] = new Thread(() -> run(port, deadline, offset), "connection-" + t);
			threads[t].start();
		}
		long started = System.nanoTime();
		for (Thread thread : threads) {
			thread.join();
		}
		double elapsed = (System.nanoTime() - started) / 1e9;
		System.out.printf(Locale.ROOT, "connections=%d seconds=%.0f requests=%d requests/s=%.0f%n", connections,
				elapsed, requests.sum(), requests.sum() / elapsed);
		System.out.println("statuses=" + new TreeMap<>(statuses));
		System.out.printf(Locale.ROOT, "latency ms: p50=%d p99=%d p99.9=%d max=%d%n", percentile(0.5),
				percentile(0.99), percentile(0.999), percentile(1.0));
		System.out.println("timeouts=" + timeouts.sum() + " (no answer within " + LoadConnection.READ_TIMEOUT_MILLIS + " ms), of which lost="
				+ lost.sum() + " (no answer within " + LoadConnection.LOST_AFTER_MILLIS + " ms)");
		System.out.println("connection errors=" + connectionErrors.sum());
		System.out.println("unexpected statuses=" + new TreeMap<>(unexpected));
		boolean clean = timeouts.sum() == 0 && connectionErrors.sum() == 0 && unexpected.isEmpty();
		System.out.println(clean ? "RESULT: every request answered as expected" : "RESULT: FAILED");
		System.exit(clean ? 0 : 1);
	}

	private static void run(int port, long deadline, int offset) {
		LoadConnection connection = null;
		for (int pair = offset; System.nanoTime() < deadline; pair++) {
			try {
				if (connection == null) {
					connection = new LoadConnection(port);
				}
				String[] local = LOCAL[pair % LOCAL.length];
				if (!exchange(connection, local) || !exchange(connection, PROXIED)) {
					connection.close();
					connection = null;
				}
			}
			catch (IOException ex) {
				connectionErrors.increment();
				close(connection);
				connection = null;
			}
		}
		close(connection);
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

	/**
	 * @return whether the connection can be used again
	 */
	private static boolean exchange(LoadConnection connection, String[] request) throws IOException {
		long started = System.nanoTime();
		int status = connection.get(request[0], null);
		requests.increment();
		if (status < 0) {
			timeouts.increment();
			status = connection.awaitLate();
			if (status < 0) {
				lost.increment();
				return false;
			}
		}
		latencyMillis.incrementAndGet((int) Math.min(LoadConnection.LOST_AFTER_MILLIS, (System.nanoTime() - started) / 1_000_000));
		statuses.computeIfAbsent(Integer.toString(status), (key) -> new LongAdder()).increment();
		if (!Arrays.asList(request).subList(1, request.length).contains(Integer.toString(status))) {
			unexpected.computeIfAbsent(request[0] + " -> " + status, (key) -> new LongAdder()).increment();
		}
		return true;
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
