package dev.ratelimit.e2e;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One HTTP/1.1 client connection kept alive across requests, spoken over a plain socket
 * so that a test controls exactly which requests share it: pooled HTTP clients pick
 * connections themselves and retry or reopen them behind the test's back.
 */
final class KeepAliveConnection implements AutoCloseable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	KeepAliveConnection(int port, Duration readTimeout) throws IOException {
		this.socket = new Socket("127.0.0.1", port);
		this.socket.setSoTimeout((int) readTimeout.toMillis());
		this.socket.setTcpNoDelay(true);
		this.in = new BufferedInputStream(this.socket.getInputStream());
		this.out = this.socket.getOutputStream();
	}

	/**
	 * Send a GET and read its whole response.
	 * @return the status, or {@code -1} when no response came within the read timeout
	 */
	int get(String pathAndQuery, String... headerNamesAndValues) throws IOException {
		StringBuilder request = new StringBuilder("GET ").append(pathAndQuery)
			.append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
		for (int i = 0; i < headerNamesAndValues.length; i += 2) {
			request.append(headerNamesAndValues[i]).append(": ").append(headerNamesAndValues[i + 1]).append("\r\n");
		}
		this.out.write(request.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
		this.out.flush();
		try {
			return readResponse();
		}
		catch (SocketTimeoutException ex) {
			return -1;
		}
	}

	private int readResponse() throws IOException {
		String statusLine = readLine();
		int status = Integer.parseInt(statusLine.split(" ", 3)[1]);
		long contentLength = -1;
		boolean chunked = false;
		boolean closing = false;
		for (String line = readLine(); !line.isEmpty(); line = readLine()) {
			int colon = line.indexOf(':');
			String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
			String value = line.substring(colon + 1).trim();
			switch (name) {
				case "content-length" -> contentLength = Long.parseLong(value);
				case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
				case "connection" -> closing = value.equalsIgnoreCase("close");
				default -> {
				}
			}
		}
		if (closing) {
			throw new IOException("the server closed a keep-alive connection after " + statusLine);
		}
		if (chunked) {
			for (long size = Long.parseLong(readLine().split(";")[0].trim(), 16); size > 0; size = Long
				.parseLong(readLine().split(";")[0].trim(), 16)) {
				skip(size);
				readLine();
			}
			while (!readLine().isEmpty()) {
				// trailer fields, if any
			}
		}
		else if (contentLength > 0) {
			skip(contentLength);
		}
		return status;
	}

	private String readLine() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		for (int b = this.in.read(); b != '\n'; b = this.in.read()) {
			if (b < 0) {
				throw new IOException("the server closed the connection mid-response");
			}
			if (b != '\r') {
				line.write(b);
			}
		}
		return line.toString(StandardCharsets.US_ASCII);
	}

	private void skip(long bytes) throws IOException {
		for (long left = bytes; left > 0;) {
			long skipped = this.in.skip(left);
			if (skipped <= 0) {
				if (this.in.read() < 0) {
					throw new IOException("the server closed the connection mid-body");
				}
				skipped = 1;
			}
			left -= skipped;
		}
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

}
