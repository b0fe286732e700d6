package dev.ratelimit.web;

import java.util.function.Function;

import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * The Spring Cloud Gateway {@code KeyResolver} beans a policy's {@code key} may name
 * ({@code "#{@beanName}"}), seen through a type that does not need the gateway on the
 * classpath: the gateway's adapter provides them, for gateway routes and web routes
 * alike.
 */
@FunctionalInterface
public interface KeyResolverBeans {

	/**
	 * The bean's {@code resolve} method.
	 */
	Function<ServerWebExchange, Mono<String>> named(String beanName);

}
