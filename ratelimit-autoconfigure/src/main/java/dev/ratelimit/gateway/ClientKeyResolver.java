package dev.ratelimit.gateway;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Function;

import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
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
	 * Keys longer than this are replaced by their digest, so a hostile header cannot
	 * make a store hold huge keys.
	 */
	int MAX_KEY_LENGTH = 256;

	/**
	 * Resolve the key of a request.
	 * @param exchange the request
	 * @param knownApiKey the request's API key when it is a configured one, otherwise
	 * {@code null}
	 * @return the key, or nothing when the request has none and its policy rejects it
	 */
	Mono<String> resolve(ServerWebExchange exchange, String knownApiKey);

	/**
	 * The resolver of a route.
	 * @param source whose quota a request counts against
	 * @param routeId the route's id, the key of {@code key: route}
	 * @param beanFactory where {@code KeyResolver} beans are looked up
	 * @param clientAddresses the client's address, the fallback of a key that yields
	 * nothing
	 * @param onMissingKey whether a key that yields nothing falls back to the client's
	 * address or resolves to nothing, for the filter to reject
	 */
	static ClientKeyResolver of(KeySource source, String routeId, BeanFactory beanFactory,
			ClientAddressResolver clientAddresses, OnMissingKey onMissingKey) {
		if (source instanceof KeySource.ApiKey) {
			return (exchange, knownApiKey) -> Mono.just(
					(knownApiKey != null) ? bounded(knownApiKey) : clientAddresses.resolve(exchange.getRequest()));
		}
		if (source instanceof KeySource.ClientIp) {
			return (exchange, knownApiKey) -> Mono.just(clientAddresses.resolve(exchange.getRequest()));
		}
		if (source instanceof KeySource.Route) {
			Mono<String> route = Mono.just(bounded(routeId));
			return (exchange, knownApiKey) -> route;
		}
		Function<ServerWebExchange, Mono<String>> missing = (onMissingKey == OnMissingKey.REJECT)
				? (exchange) -> Mono.empty()
				: (exchange) -> Mono.fromSupplier(() -> clientAddresses.resolve(exchange.getRequest()));
		if (source instanceof KeySource.Header header) {
			String headerName = header.headerName();
			return (exchange, knownApiKey) -> {
				String value = exchange.getRequest().getHeaders().getFirst(headerName);
				return (value != null && !value.isEmpty()) ? Mono.just(bounded(value)) : missing.apply(exchange);
			};
		}
		if (source instanceof KeySource.Principal) {
			return (exchange, knownApiKey) -> exchange.getPrincipal()
				.map(java.security.Principal::getName)
				.filter((name) -> !name.isEmpty())
				.map(ClientKeyResolver::bounded)
				.switchIfEmpty(Mono.defer(() -> missing.apply(exchange)));
		}
		if (source instanceof KeySource.Bean bean) {
			KeyResolver keyResolver = beanFactory.getBean(bean.beanName(), KeyResolver.class);
			// Deferred so that a resolver throwing instead of signalling an error is
			// handled like a failing store, never as a 5xx.
			return (exchange, knownApiKey) -> Mono.defer(() -> keyResolver.resolve(exchange))
				.filter((key) -> !key.isEmpty())
				.map(ClientKeyResolver::bounded)
				.switchIfEmpty(Mono.defer(() -> missing.apply(exchange)));
		}
		throw new IllegalArgumentException("unhandled key source " + source);
	}

	/**
	 * The key itself, or {@code sha256:<hex digest>} when it is longer than
	 * {@link #MAX_KEY_LENGTH}.
	 */
	static String bounded(String key) {
		if (key.length() <= MAX_KEY_LENGTH) {
			return key;
		}
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
			return "sha256:" + HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

}
