package dev.ratelimit.afterresponse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.management.OperatingSystemMXBean;

/**
 * One wrk run against a URL of this JVM's gateway: the throughput, every answer a 200,
 * and this JVM's CPU time per request meanwhile (the gateway's and the upstream's, all
 * threads, the collector's included), which other processes disturb less than the
 * throughput.
 *
 * @param perSecond requests per second
 * @param cpuMicrosPerRequest this JVM's CPU time per request
 */
record Wrk(double perSecond, double cpuMicrosPerRequest) {

	private static final Pattern REQUESTS_PER_SECOND = Pattern.compile("Requests/sec:\\s+([\\d.]+)");

	private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in");

	private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+(\\d+)");

	static final int CONNECTIONS = 16;

	static Wrk run(String url, Duration duration) {
		OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
		long cpuBefore = os.getProcessCpuTime();
		String output;
		int exited;
		try {
			Process process = new ProcessBuilder("wrk", "-t1", "-c" + CONNECTIONS, "-d" + duration.toSeconds() + "s",
					"-H", "X-Client: wrk", url)
				.redirectErrorStream(true)
				.start();
			output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			exited = process.waitFor();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot run wrk; install it (apt-get install wrk)", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		long cpu = os.getProcessCpuTime() - cpuBefore;
		if (exited != 0) {
			throw new IllegalStateException("wrk failed: " + output);
		}
		Matcher non2xx = NON_2XX.matcher(output);
		if (non2xx.find()) {
			throw new IllegalStateException(non2xx.group(1) + " answers were not 200: " + output);
		}
		Matcher perSecond = REQUESTS_PER_SECOND.matcher(output);
		Matcher requests = REQUESTS.matcher(output);
		if (!perSecond.find() || !requests.find()) {
			throw new IllegalStateException("no throughput in wrk's output: " + output);
		}
		return new Wrk(Double.parseDouble(perSecond.group(1)), cpu / 1e3 / Long.parseLong(requests.group(1)));
	}

	@Override
	public String toString() {
		return String.format(Locale.ROOT, "%,.0f req/s, %.1f µs CPU each", this.perSecond, this.cpuMicrosPerRequest);
	}

}
