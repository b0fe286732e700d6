package dev.ratelimit.gateway;

import java.util.function.Function;

import dev.ratelimit.web.KeyResolverBeans;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.web.server.ServerWebExchange;

/**
 * The gateway's {@code KeyResolver} beans, by name, for the policies keyed by one on
 * gateway routes and web routes alike.
 */
public final class GatewayKeyResolverBeans implements KeyResolverBeans {

	private final BeanFactory beanFactory;

	/**
	 * @param beanFactory where {@code "#{@beanName}"} key resolvers are looked up
	 */
	public GatewayKeyResolverBeans(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public Function<ServerWebExchange, Mono<String>> named(String beanName) {
		return this.beanFactory.getBean(beanName, KeyResolver.class)::resolve;
	}

}
