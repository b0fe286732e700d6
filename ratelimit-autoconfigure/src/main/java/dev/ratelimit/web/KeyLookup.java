package dev.ratelimit.web;

import java.util.function.Function;

import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.store.BucketId;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * How a route finds whose quota a request counts against, chosen once per route from
 * the policy's {@link KeySource}: read from the request at once, or awaited. A source
 * that yields nothing (no principal, an empty header) falls back to the client's address
 * ({@link ClientAddressResolver}), so no request escapes limiting, or, when its policy
 * rejects such requests, yields no key. The keys read part by part (a method, a path, a
 * query parameter, a cookie, a claim, several keys together) are {@link KeyParts}'.
 */
sealed interface KeyLookup permits KeyLookup.InRequest, KeyLookup.Awaited {

	/**
	 * A key read from the request itself, so that the judge needs no {@code Mono}.
	 */
	@FunctionalInterface
	non-sealed interface InRequest extends KeyLookup {

		/**
		 * @param knownApiKey the request's API key when it is a configured one,
		 * otherwise {@code null}
		 * @return the key, or {@code null} when the request has none and its policy
		 * rejects it
		 */
		@Nullable String read(ServerWebExchange exchange, @Nullable String knownApiKey);

	}

	/**
	 * A key that has to be waited for: the principal's name, a {@code KeyResolver}
	 * bean's answer.
	 */
	@FunctionalInterface
	non-sealed interface Awaited extends KeyLookup {

		/**
		 * @param knownApiKey the request's API key when it is a configured one,
		 * otherwise {@code null}
		 * @return the key, or nothing when the request has none and its policy rejects it
		 */
		Mono<String> resolve(ServerWebExchange exchange, @Nullable String knownApiKey);

	}

	/**
	 * The lookup of a route.
	 * @param source whose quota a request counts against
	 * @param routeId the route's id, the key of {@code key: route}
	 * @param keyResolverBeans the Spring Cloud Gateway {@code KeyResolver} beans, as a
	 * {@code #{@beanName}} key names them; {@code null} without the gateway, where no
	 * policy may be keyed by one
	 * @param clientAddresses the client's address, the fallback of a key that yields
	 * nothing
	 * @param onMissingKey whether a key that yields nothing falls back to the client's
	 * address or yields no key, for the judge to reject
	 */
	static KeyLookup of(KeySource source, String routeId, @Nullable KeyResolverBeans keyResolverBeans,
			ClientAddressResolver clientAddresses, OnMissingKey onMissingKey) {
		if (source instanceof KeySource.ApiKey) {
			InRequest apiKey = (exchange, knownApiKey) -> (knownApiKey != null) ? BucketId.storedKey(knownApiKey)
					: clientAddresses.resolve(exchange.getRequest());
			return apiKey;
		}
		if (source instanceof KeySource.ClientIp) {
			InRequest clientIp = (exchange, knownApiKey) -> clientAddresses.resolve(exchange.getRequest());
			return clientIp;
		}
		if (source instanceof KeySource.Route) {
			String route = BucketId.storedKey(routeId);
			InRequest routeKey = (exchange, knownApiKey) -> route;
			return routeKey;
		}
		if (source instanceof KeySource.Header header) {
			String headerName = header.headerName();
			boolean reject = onMissingKey == OnMissingKey.REJECT;
			InRequest headerKey = (exchange, knownApiKey) -> {
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
			Awaited principal = (exchange, knownApiKey) -> exchange.getPrincipal()
				.map(java.security.Principal::getName)
				.filter((name) -> !name.isEmpty())
				.map(BucketId::storedKey)
				.switchIfEmpty(Mono.defer(() -> missing.apply(exchange)));
			return principal;
		}
		if (source instanceof KeySource.Bean bean) {
			if (keyResolverBeans == null) {
				throw new IllegalArgumentException("key " + source + " names a KeyResolver bean, which needs Spring Cloud Gateway");
			}
			Function<ServerWebExchange, Mono<String>> keyResolver = keyResolverBeans.named(bean.beanName());
			// Deferred so that a resolver throwing instead of signalling an error is
			// handled as one signalling it: the request goes through, never a 5xx.
			Awaited fromBean = (exchange, knownApiKey) -> Mono.defer(() -> keyResolver.apply(exchange))
				.filter((key) -> !key.isEmpty())
				.map(BucketId::storedKey)
				.switchIfEmpty(Mono.defer(() -> missing.apply(exchange)));
			return fromBean;
		}
		return KeyParts.lookup(source, routeId, keyResolverBeans, clientAddresses, onMissingKey);
	}

}
