package dev.ratelimit.shaping;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Many client connections to a gateway, each with one request, from a JVM of its own so
 * that none of the client's objects count in the gateway's heap and each side has the
 * whole file descriptor limit. In {@code held} mode the requests are left unanswered
 * (the gateway holds them); in {@code idle} mode each is read to its end and the
 * connection stays open, idle, as a control. The connections close when the child is
 * closed: a held request's client going away.
 */
final class HeldConnections implements AutoCloseable {

	private final Process process;

	private HeldConnections(Process process) {
		this.process = process;
	}

	/**
	 * Open the connections and send their requests; returns once every request is sent
	 * (held mode) or answered (idle mode).
	 */
	static HeldConnections open(int port, String path, int connections, boolean held) {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		try {
			// A small, quickly compiled JVM that competes little for the cores once its
			// connections are open.
			Process process = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
					"-cp", System.getProperty("java.class.path"),
					Child.class.getName(), Integer.toString(port), path, Integer.toString(connections),
					Boolean.toString(held))
				.redirectError(ProcessBuilder.Redirect.INHERIT)
				.start();
			BufferedReader out = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
			String line = out.readLine();
			if (!"ready".equals(line)) {
				process.destroyForcibly();
				throw new IllegalStateException("the client connections did not open: " + line);
			}
			return new HeldConnections(process);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Close every connection (the child exits when its standard input closes).
	 */
	@Override
	public void close() {
		try {
			this.process.getOutputStream().close();
			if (this.process.waitFor() != 0) {
				throw new IllegalStateException("the client connections' JVM failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The client's JVM: plain blocking sockets, opened one after the other so that the
	 * gateway's accept backlog never overflows.
	 */
	static final class Child {

		public static void main(String[] arguments) throws IOException {
			InetSocketAddress gateway = new InetSocketAddress("127.0.0.1", Integer.parseInt(arguments[0]));
			String path = arguments[1];
			int count = Integer.parseInt(arguments[2]);
			boolean held = Boolean.parseBoolean(arguments[3]);
			List<SocketChannel> connections = new ArrayList<>(count);
			for (int i = 0; i < count; i++) {
				SocketChannel connection = SocketChannel.open(gateway);
				connection.write(ByteBuffer.wrap(("GET /" + path + "/" + i + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
						+ "X-Client: bench-client\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
				if (!held) {
					readResponse(connection);
				}
				connections.add(connection);
			}
			System.out.println("ready");
			System.out.flush();
			while (System.in.read() >= 0) {
				// Until the parent closes our input.
			}
			for (SocketChannel connection : connections) {
				connection.close();
			}
		}

		/**
		 * Read one response with a {@code Content-Length}, as the upstream sends them and
		 * the gateway forwards them.
		 */
		private static void readResponse(SocketChannel connection) throws IOException {
			ByteBuffer buffer = ByteBuffer.allocate(4096);
			while (true) {
				if (connection.read(buffer) < 0) {
					throw new IOException("connection closed before its response");
				}
				String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII);
				int headersEnd = text.indexOf("\r\n\r\n");
				if (headersEnd >= 0 && text.length() >= headersEnd + 4 + contentLength(text)) {
					if (!text.startsWith("HTTP/1.1 200")) {
						throw new IOException("unexpected response: " + text);
					}
					return;
				}
			}
		}

		private static int contentLength(String headers) {
			for (String line : headers.split("\r\n")) {
				if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
					return Integer.parseInt(line.substring(15).trim());
				}
			}
			throw new IllegalStateException("response without Content-Length: " + headers);
		}

	}

}
