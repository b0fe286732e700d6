package dev.ratelimit.testsupport;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.reactor.netty.autoconfigure.NettyReactiveWebServerAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * Gives every test application context its own Reactor Netty event loops and
 * connections. With Boot's default, global resources, closing one context disposes the
 * event loops of every other context still open in the test JVM (Spring's test context
 * cache keeps them open), and the next request to such a gateway hangs.
 */
@AutoConfiguration(before = NettyReactiveWebServerAutoConfiguration.class,
		beforeName = "org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration")
public final class IsolatedReactorResourcesAutoConfiguration {

	@Bean
	ReactorResourceFactory reactorResourceFactory() {
		ReactorResourceFactory factory = new ReactorResourceFactory();
		factory.setUseGlobalResources(false);
		return factory;
	}

}
