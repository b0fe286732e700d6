package dev.ratelimit.gateway;

import java.util.function.Function;

import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.store.BucketId;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * Resolves whose quota a request counts against, as chosen once per route from the
 * policy's {@link KeySource}. A source that yields nothing (no principal, an empty
 * header) falls back to the client's address ({@link ClientAddressResolver}), so no
 * request escapes limiting, or, when its policy rejects such requests, resolves to
 * nothing.
 */
@FunctionalInterface
interface ClientKeyResolver {

	/**
	 * Resolve the key of a request.
	 * @param exchange the request
	 * @param knownApiKey the request's API key when it is a configured one, otherwise
	 * {@code null}
	 * @return the key, or nothing when the request has none and its policy rejects it
	 */
	Mono<String> resolve(ServerWebExchange exchange, @Nullable String knownApiKey);

	/**
	 * A resolver that reads every key from the request itself, at once, so that the
	 * filter needs no {@code Mono} to get it.
	 */
	@FunctionalInterface
	interface Immediate extends ClientKeyResolver {

		/**
		 * The key of a request, as {@link #resolve} gives it.
		 * @return the key, or {@code null} when the request has none and its policy
		 * rejects it
		 */
		@Nullable String resolveNow(ServerWebExchange exchange, @Nullable String knownApiKey);

		@Override
		default Mono<String> resolve(ServerWebExchange exchange, @Nullable String knownApiKey) {
			return Mono.justOrEmpty(resolveNow(exchange, knownApiKey));
		}

	}

	/**
	 * The resolver of a route.
	 * @param source whose quota a request counts against
	 * @param routeId the route's id, the key of {@code key: route}
	 * @param keyResolverBeans the Spring Cloud Gateway {@code KeyResolver} beans, as a
	 * {@code #{@beanName}} key names them
	 * @param clientAddresses the client's address, the fallback of a key that yields
	 * nothing
	 * @param onMissingKey whether a key that yields nothing falls back to the client's
	 * address or resolves to nothing, for the filter to reject
	 */
	static ClientKeyResolver of(KeySource source, String routeId, KeyResolverBeans keyResolverBeans,
			ClientAddressResolver clientAddresses, OnMissingKey onMissingKey) {
		if (source instanceof KeySource.ApiKey) {
			Immediate apiKey = (exchange, knownApiKey) -> (knownApiKey != null) ? BucketId.storedKey(knownApiKey)
					: clientAddresses.resolve(exchange.getRequest());
			return apiKey;
		}
		if (source instanceof KeySource.ClientIp) {
			Immediate clientIp = (exchange, knownApiKey) -> clientAddresses.resolve(exchange.getRequest());
			return clientIp;
		}
		if (source instanceof KeySource.Route) {
			String route = BucketId.storedKey(routeId);
			Immediate routeKey = (exchange, knownApiKey) -> route;
			return routeKey;
		}
		if (source instanceof KeySource.Header header) {
			String headerName = header.headerName();
			boolean reject = onMissingKey == OnMissingKey.REJECT;
			Immediate headerKey = (exchange, knownApiKey) -> {
				String value = exchange.getRequest().getHeaders().getFirst(headerName);
				if (value != null && !value.isEmpty()) {
					return BucketId.storedKey(value);
				}
				return reject ? null : clientAddresses.resolve(exchange.getRequest());
			};
			return headerKey;
		}
		Function<ServerWebExchange, Mono<String>> missing = (onMissingKey == OnMissingKey.REJECT)
				? (exchange) -> Mono.empty()
				: (exchange) -> Mono.fromSupplier(() -> clientAddresses.resolve(exchange.getRequest()));
		if (source instanceof KeySource.Principal) {
			return (exchange, knownApiKey) -> exchange.getPrincipal()
				.map(java.security.Principal::getName)
				.filter((name) -> !name.isEmpty())
				.map(BucketId::storedKey)
				.switchIfEmpty(Mono.defer(() -> missing.apply(exchange)));
		}
		if (source instanceof KeySource.Bean bean) {
			Function<ServerWebExchange, Mono<String>> keyResolver = keyResolverBeans.named(bean.beanName());
			// Deferred so that a resolver throwing instead of signalling an error is
			// handled as one signalling it: the request goes through, never a 5xx.
			return (exchange, knownApiKey) -> Mono.defer(() -> keyResolver.apply(exchange))
				.filter((key) -> !key.isEmpty())
				.map(BucketId::storedKey)
				.switchIfEmpty(Mono.defer(() -> missing.apply(exchange)));
		}
		throw new IllegalArgumentException("unhandled key source " + source);
	}

	/**
	 * The Spring Cloud Gateway {@code KeyResolver} beans, seen through a type that does
	 * not need the gateway on the classpath.
	 */
	@FunctionalInterface
	interface KeyResolverBeans {

		/**
		 * The bean's {@code resolve} method.
		 */
		Function<ServerWebExchange, Mono<String>> named(String beanName);

	}

}
