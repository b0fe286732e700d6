package dev.ratelimit.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a Redis that can stop forwarding without closing anything,
 * as a network partition or a hung server does: connections stay open, commands go
 * unanswered. {@link #stall()} and {@link #resume()} switch it; bytes held while
 * stalled are forwarded once it resumes, so the client sees a slow network, never a
 * corrupt stream.
 */
final class StallingProxy implements AutoCloseable {

	private final int targetPort;

	private final ServerSocket server;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final Object gate = new Object();

	private volatile boolean stalled;

	private volatile boolean closed;

	StallingProxy(int targetPort) {
		this.targetPort = targetPort;
		try {
			this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Thread acceptor = new Thread(this::accept, "stalling-proxy-" + port());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Stop forwarding in both directions; new connections are accepted and held too.
	 */
	void stall() {
		this.stalled = true;
	}

	void resume() {
		synchronized (this.gate) {
			this.stalled = false;
			this.gate.notifyAll();
		}
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				this.sockets.add(client);
				Thread connector = new Thread(() -> connect(client), "stalling-proxy-connect");
				connector.setDaemon(true);
				connector.start();
			}
			catch (IOException ex) {
				if (!this.closed) {
					throw new UncheckedIOException(ex);
				}
			}
		}
	}

	private void connect(Socket client) {
		try {
			awaitForwarding();
			Socket redis = new Socket(InetAddress.getLoopbackAddress(), this.targetPort);
			this.sockets.add(redis);
			pipe(client, redis);
			pipe(redis, client);
		}
		catch (IOException | InterruptedException ex) {
			closeQuietly(client);
		}
	}

	private void pipe(Socket from, Socket to) {
		Thread pipe = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					awaitForwarding();
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// The other side closed: close this one too.
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
			}
		}, "stalling-proxy-pipe");
		pipe.setDaemon(true);
		pipe.start();
	}

	private void awaitForwarding() throws InterruptedException {
		synchronized (this.gate) {
			while (this.stalled && !this.closed) {
				this.gate.wait();
			}
		}
	}

	@Override
	public void close() {
		this.closed = true;
		resume();
		closeQuietly(this.server);
		this.sockets.forEach(StallingProxy::closeQuietly);
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// Closing anyway.
		}
	}

}
