package dev.ratelimit.bench.e2e;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import reactor.netty.http.HttpResources;
import reactor.netty.resources.LoopResources;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With {@code bench.lettuce-on-reactor=true}, Lettuce's connections on Reactor Netty's event
 * loops instead of Lettuce's own (src/bench/thread-cpu.sh): a Redis reply then resumes the
 * request on a loop that the forwarded request can use too. An experiment only, not the
 * starter's: every Redis client of the application moves with it, and Spring Data's shared
 * connection, opened synchronously by the first command, waits forever on the loop it needs
 * when that command runs on an event loop ({@code RedisRateLimiter} does).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty("bench.lettuce-on-reactor")
class LettuceOnReactorLoops {

	/**
	 * Reactor Netty's loops, which this provider neither releases nor shuts down: they are
	 * the server's.
	 */
	@Bean
	ClientResourcesBuilderCustomizer lettuceEventLoopsCustomizer() {
		return (builder) -> builder.eventLoopGroupProvider(new EventLoopGroupProvider() {
			@SuppressWarnings("unchecked")
			@Override
			public <T extends EventLoopGroup> T allocate(Class<T> type) {
				return (T) HttpResources.get().onClient(true);
			}

			@Override
			public int threadPoolSize() {
				return LoopResources.DEFAULT_IO_WORKER_COUNT;
			}

			@Override
			public Future<Boolean> release(EventExecutorGroup group, long quiet, long timeout, TimeUnit unit) {
				return GlobalEventExecutor.INSTANCE.newSucceededFuture(true);
			}

			@Override
			public Future<Boolean> shutdown(long quiet, long timeout, TimeUnit unit) {
				return GlobalEventExecutor.INSTANCE.newSucceededFuture(true);
			}
		});
	}

}
