package dev.ratelimit.bench.e2e;

import java.net.InetSocketAddress;
import java.util.Map;

import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.caffeine.Bucket4jCaffeine;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The gateway of the end-to-end comparison (src/bench/e2e.sh): one application, the
 * same two routes to the same upstream ({@code /open/**}, never limited, and
 * {@code /closed/**}, limited to one request an hour per client), limited by a
 * different filter in each Spring profile of {@code bench-gateway.yml}: {@code none},
 * {@code rl-caffeine}, {@code rl-redis}, {@code rl-hybrid}, {@code scg-redis},
 * {@code scg-bucket4j}. Clients are told apart by the {@code X-Client} header. The
 * profile {@code caffeine-keys} (src/bench/caffeine-keys.sh) serves {@code /open/**}
 * without a limiter beside {@code /windowed/**}, limited by a sliding window counter.
 */
@SpringBootApplication
public class BenchGatewayApplication {

	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(BenchGatewayApplication.class);
		application.setDefaultProperties(Map.of("spring.config.name", "bench-gateway"));
		application.run(args);
	}

	/**
	 * Spring Cloud Gateway's key resolver, resolving the client as our policies'
	 * {@code key: header:X-Client} does: the header, else the client IP.
	 */
	@Bean
	KeyResolver clientKeyResolver() {
		return (exchange) -> {
			String client = exchange.getRequest().getHeaders().getFirst("X-Client");
			if (client != null && !client.isEmpty()) {
				return Mono.just(client);
			}
			InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
			return Mono.just((remote != null) ? remote.getHostString() : "unknown");
		};
	}

	/**
	 * What Spring Cloud Gateway's {@code Bucket4jRateLimiter} needs: an asynchronous
	 * proxy manager, here Bucket4j's Caffeine one, bounded as our Caffeine store is by
	 * default.
	 */
	@Configuration(proxyBeanMethods = false)
	@Profile("scg-bucket4j")
	static class Bucket4jCaffeineConfiguration {

		@Bean
		AsyncProxyManager<String> bucket4jProxyManager() {
			return Bucket4jCaffeine.<String>builderFor(Caffeine.newBuilder().maximumSize(1_000_000)).build().asAsync();
		}

	}

}
