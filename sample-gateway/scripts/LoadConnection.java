import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 connection on a plain socket, shared by the load programs
 * beside it ({@code KeepAliveLoad}, {@code SustainedLoad}), which their scripts compile
 * together.
 */
public final class LoadConnection implements AutoCloseable {

	/** A request not answered within this is a timeout. */
	static final int READ_TIMEOUT_MILLIS = 5_000;

	/**
	 * A timed-out request is waited for this much longer: answered by then it was late
	 * (the machine was overloaded), and is counted as what it was answered; never
	 * answered, it was lost (a connection no longer read, which only the client closing
	 * ends).
	 */
	static final int LOST_AFTER_MILLIS = 60_000;

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	private int status;

	/** Whether the last response carried RateLimit-Limit: the limit decided it. */
	private boolean quotaHeaders;

	LoadConnection(int port) throws IOException {
		this.socket = new Socket("127.0.0.1", port);
		this.socket.setSoTimeout(READ_TIMEOUT_MILLIS);
		this.socket.setTcpNoDelay(true);
		this.in = new BufferedInputStream(this.socket.getInputStream());
		this.out = this.socket.getOutputStream();
	}

	/** The status, or -1 when no answer came within the read timeout. */
	int get(String path, String client) throws IOException {
		request(path, client);
		try {
			read(null);
			return this.status;
		}
		catch (SocketTimeoutException ex) {
			return -1;
		}
	}

	/** After a timeout: the status if the answer still comes, else -1. */
	int awaitLate() throws IOException {
		this.socket.setSoTimeout(LOST_AFTER_MILLIS - READ_TIMEOUT_MILLIS);
		try {
			read(null);
			return this.status;
		}
		catch (SocketTimeoutException ex) {
			return -1;
		}
		finally {
			this.socket.setSoTimeout(READ_TIMEOUT_MILLIS);
		}
	}

	/** The body of a 200, else {@code null}. */
	String getBody(String path) throws IOException {
		request(path, null);
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		read(body);
		return (this.status == 200) ? body.toString(StandardCharsets.UTF_8) : null;
	}

	private void request(String path, String client) throws IOException {
		String header = (client != null) ? "X-Client: " + client + "\r\n" : "";
		this.out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + header + "\r\n")
			.getBytes(StandardCharsets.US_ASCII));
		this.out.flush();
	}

	private void read(ByteArrayOutputStream body) throws IOException {
		this.status = Integer.parseInt(line().split(" ", 3)[1]);
		this.quotaHeaders = false;
		long length = 0;
		boolean chunked = false;
		for (String header = line(); !header.isEmpty(); header = line()) {
			String lower = header.toLowerCase(Locale.ROOT);
			if (lower.startsWith("content-length:")) {
				length = Long.parseLong(header.substring(15).trim());
			}
			else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
				chunked = true;
			}
			else if (lower.startsWith("ratelimit-limit:")) {
				this.quotaHeaders = true;
			}
		}
		if (chunked) {
			for (long size = chunk(); size > 0; size = chunk()) {
				copy(size, body);
				line();
			}
			while (!line().isEmpty()) {
				// trailer fields
			}
		}
		else {
			copy(length, body);
		}
	}

	private long chunk() throws IOException {
		return Long.parseLong(line().split(";")[0].trim(), 16);
	}

	private String line() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		for (int b = this.in.read(); b != '\n'; b = this.in.read()) {
			if (b < 0) {
				throw new IOException("connection closed mid-response");
			}
			if (b != '\r') {
				line.write(b);
			}
		}
		return line.toString(StandardCharsets.US_ASCII);
	}

	private void copy(long bytes, ByteArrayOutputStream body) throws IOException {
		for (long i = 0; i < bytes; i++) {
			int b = this.in.read();
			if (b < 0) {
				throw new IOException("connection closed mid-body");
			}
			if (body != null) {
				body.write(b);
			}
		}
	}

	/** Whether the last response carried RateLimit-Limit: the limit decided it. */
	boolean quotaHeaders() {
		return this.quotaHeaders;
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

}
