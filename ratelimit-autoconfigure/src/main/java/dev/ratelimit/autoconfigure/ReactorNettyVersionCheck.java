package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.jar.Manifest;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.netty.http.server.HttpServer;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Warns at start-up when the gateway runs on a Reactor Netty that loses requests:
 * before 1.3.8, a keep-alive connection could stop being read after a response the
 * server wrote itself while a proxied response was still being written, and the
 * client's next request, typically the retry after a {@code 429}, was never answered
 * (reactor/reactor-netty#4361). Spring Boot 4.0.7 manages 1.3.6, and a starter cannot
 * override the versions that the application's own dependency management picks, so
 * the application has to, or move to a Spring Boot that manages 1.3.8: 4.0.9 and 4.1.2
 * do (their reactor-bom is 2025.0.8).
 */
final class ReactorNettyVersionCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(ReactorNettyVersionCheck.class);

	/**
	 * The Spring Boot versions known to manage Reactor Netty 1.3.8 (reactor-bom 2025.0.8):
	 * 4.1.2 is built and tested with this starter, 4.0.9's dependency management was read.
	 */
	static final String BOOT_VERSIONS_WITH_FIX = "4.0.9 and 4.1.2";

	private final String runningVersion;

	ReactorNettyVersionCheck() {
		this(bundleVersion());
	}

	ReactorNettyVersionCheck(String runningVersion) {
		this.runningVersion = runningVersion;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (losesKeepAliveRequests(this.runningVersion)) {
			logger.warn("Reactor Netty " + this.runningVersion + " can leave a client's next request on a "
					+ "keep-alive connection unanswered after a response the gateway wrote itself, such as a 429 "
					+ "(reactor/reactor-netty#4361, fixed in 1.3.8). Upgrade it: with spring-boot-starter-parent "
					+ "4.0.x set the Maven properties reactor-bom.version=2025.0.8 and netty.version=4.2.18.Final "
					+ "(Reactor Netty 1.3.8 needs Netty 4.2.18 or newer). Spring Boot " + BOOT_VERSIONS_WITH_FIX
					+ " manage Reactor Netty 1.3.8 themselves and need neither property.");
		}
	}

	/**
	 * Whether a Reactor Netty version (as its jar's {@code Bundle-Version}, for example
	 * {@code 1.3.6.RELEASE}) has the lost keep-alive request: 1.3.0 to 1.3.7.
	 */
	static boolean losesKeepAliveRequests(String version) {
		if (version == null) {
			return false;
		}
		String[] parts = version.split("\\.");
		if (parts.length < 3 || !parts[0].equals("1") || !parts[1].equals("3")) {
			return false;
		}
		try {
			return Integer.parseInt(parts[2]) < 8;
		}
		catch (NumberFormatException ex) {
			return false;
		}
	}

	/**
	 * The {@code Bundle-Version} of the jar that holds Reactor Netty's HTTP server, or
	 * {@code null} when it cannot be read (classes not from a jar).
	 */
	static @Nullable String bundleVersion() {
		URL classFile = HttpServer.class.getResource("HttpServer.class");
		String location = (classFile != null) ? classFile.toString() : "";
		int entry = location.lastIndexOf("!/");
		if (entry < 0) {
			return null;
		}
		try (InputStream manifest = new URL(location.substring(0, entry) + "!/META-INF/MANIFEST.MF").openStream()) {
			return new Manifest(manifest).getMainAttributes().getValue("Bundle-Version");
		}
		catch (IOException ex) {
			return null;
		}
	}

}
