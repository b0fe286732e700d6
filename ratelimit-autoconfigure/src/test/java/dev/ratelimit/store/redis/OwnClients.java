package dev.ratelimit.store.redis;

import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * Templates each on a client of its own, with Lettuce's default timeouts, to any port
 * (a stalling proxy's, a closed one), destroyed together.
 */
final class OwnClients implements AutoCloseable {

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	ReactiveStringRedisTemplate template(int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		return new ReactiveStringRedisTemplate(factory);
	}

	@Override
	public void close() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

}
