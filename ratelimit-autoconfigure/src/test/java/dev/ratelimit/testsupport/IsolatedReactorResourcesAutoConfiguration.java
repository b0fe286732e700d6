package dev.ratelimit.testsupport;

import java.time.Duration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.reactor.netty.autoconfigure.NettyReactiveWebServerAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * Gives every test application context its own Reactor Netty event loops and
 * connections. With Boot's default, global resources, closing one context disposes the
 * event loops of every other context still open in the test JVM (Spring's test context
 * cache keeps them open), and the next request to such a gateway hangs.
 * <p>
 * The loops shut down without Reactor Netty's quiet period (2 s of no new tasks): a test
 * closes its context once its exchanges are done, and waiting 2 s per closed context
 * was about a third of the end-to-end tests' time.
 */
@AutoConfiguration(before = NettyReactiveWebServerAutoConfiguration.class,
		beforeName = "org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration")
public final class IsolatedReactorResourcesAutoConfiguration {

	@Bean
	ReactorResourceFactory reactorResourceFactory() {
		ReactorResourceFactory factory = new ReactorResourceFactory();
		factory.setUseGlobalResources(false);
		factory.setShutdownQuietPeriod(Duration.ZERO);
		return factory;
	}

}
