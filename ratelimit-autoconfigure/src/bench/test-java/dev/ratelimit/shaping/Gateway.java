package dev.ratelimit.shaping;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.web.HeldRequests;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A whole gateway application in this JVM (the shaping one; the after-response
 * measurements start it too), on a free port of the loopback interface,
 * its routes and policies given as properties.
 */
public final class Gateway implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private Gateway(ConfigurableApplicationContext context) {
		this.context = context;
	}

	public static Gateway start(List<String> properties) {
		List<String> all = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1",
				"spring.main.banner-mode=off", "logging.level.root=warn",
				// The cost measurement holds 10,000 at once, beside what it forwards.
				"ratelimit.shaping.max-held-requests=20000"));
		all.addAll(properties);
		return new Gateway(new SpringApplicationBuilder(ShapingGatewayApplication.class)
			.web(WebApplicationType.REACTIVE)
			.properties(all.toArray(String[]::new))
			.run());
	}

	public int port() {
		return ((WebServerApplicationContext) this.context).getWebServer().getPort();
	}

	HeldRequests held() {
		return this.context.getBean(HeldRequests.class);
	}

	DecidedHolds decidedHolds() {
		return this.context.getBean(DecidedHolds.class);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
