package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import dev.ratelimit.policy.KeySource;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.store.BucketId;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpCookie;
import org.springframework.web.server.ServerWebExchange;

/**
 * The keys {@link KeyLookup} reads part by part: a request's method, path, query
 * parameter, cookie or token claim, and composite keys, whose parts are any other key.
 * <p>
 * A composite key's value is its parts' values, each with {@code %} and {@code |}
 * percent-encoded, joined by {@code |}: no two different tuples of values give one
 * value, so no client reaches another combination's bucket. The whole is then bounded
 * as every key is ({@link BucketId#storedKey}). A request that lacks a part (no known
 * API key, no principal, no such header, parameter, cookie or claim, a
 * {@code KeyResolver} that yields nothing) lacks its key: it counts against its client
 * address's quota, that address alone, or, when its policy rejects such requests, yields
 * no key.
 */
final class KeyParts {

	private static final char SEPARATOR = '|';

	/**
	 * Stands for a part an awaited composite key lacks; recognised by identity, never a
	 * part's value.
	 */
	private static final String MISSING = new String("missing");

	private KeyParts() {
	}

	/**
	 * The lookup of a key {@link KeyLookup} does not read itself: {@code method},
	 * {@code path}, {@code query:<Name>}, {@code cookie:<Name>}, {@code claim:<Name>}
	 * (which needs Spring Security's OAuth2 resource server, as checked at start-up) and
	 * composite keys.
	 * @see KeyLookup#of
	 */
	static KeyLookup lookup(KeySource source, String routeId, @Nullable KeyResolverBeans keyResolverBeans,
			ClientAddressResolver clientAddresses, OnMissingKey onMissingKey) {
		boolean reject = onMissingKey == OnMissingKey.REJECT;
		if (source instanceof KeySource.Composite composite) {
			return composite(composite, routeId, keyResolverBeans, clientAddresses, reject);
		}
		Part part = part(source, routeId, keyResolverBeans, clientAddresses);
		if (part instanceof InRequestPart inRequest) {
			KeyLookup.InRequest single = (exchange, knownApiKey) -> {
				String value = inRequest.read(exchange, knownApiKey);
				if (value != null) {
					return BucketId.storedKey(value);
				}
				return reject ? null : clientAddresses.resolve(exchange.getRequest());
			};
			return single;
		}
		AwaitedPart awaited = (AwaitedPart) part;
		Function<ServerWebExchange, Mono<String>> missing = missing(clientAddresses, reject);
		KeyLookup.Awaited single = (exchange, knownApiKey) -> Mono.defer(() -> awaited.resolve(exchange))
			.map(BucketId::storedKey)
			.switchIfEmpty(Mono.defer(() -> missing.apply(exchange)));
		return single;
	}

	private static KeyLookup composite(KeySource.Composite composite, String routeId,
			@Nullable KeyResolverBeans keyResolverBeans, ClientAddressResolver clientAddresses, boolean reject) {
		List<Part> parts = new ArrayList<>(composite.parts().size());
		boolean inRequest = true;
		for (KeySource source : composite.parts()) {
			Part part = part(source, routeId, keyResolverBeans, clientAddresses);
			inRequest &= part instanceof InRequestPart;
			parts.add(part);
		}
		if (inRequest) {
			InRequestPart[] readers = parts.toArray(new InRequestPart[0]);
			KeyLookup.InRequest fromRequest = (exchange, knownApiKey) -> {
				List<String> values = new ArrayList<>(readers.length);
				for (InRequestPart reader : readers) {
					String value = reader.read(exchange, knownApiKey);
					if (value == null) {
						return reject ? null : clientAddresses.resolve(exchange.getRequest());
					}
					values.add(value);
				}
				return BucketId.storedKey(joined(values));
			};
			return fromRequest;
		}
		Function<ServerWebExchange, Mono<String>> missing = missing(clientAddresses, reject);
		// One part after the other, in the configured order. A part that fails (a
		// KeyResolver bean's error) fails the lookup, which lets the request through as any
		// failed key lookup does, never a 5xx.
		KeyLookup.Awaited awaited = (exchange, knownApiKey) -> Flux.fromIterable(parts)
			.concatMap((part) -> value(part, exchange, knownApiKey).defaultIfEmpty(MISSING))
			.collectList()
			.flatMap((values) -> {
				for (String value : values) {
					if (value == MISSING) {
						return missing.apply(exchange);
					}
				}
				return Mono.just(BucketId.storedKey(joined(values)));
			});
		return awaited;
	}

	private static Mono<String> value(Part part, ServerWebExchange exchange, @Nullable String knownApiKey) {
		if (part instanceof InRequestPart inRequest) {
			return Mono.justOrEmpty(inRequest.read(exchange, knownApiKey));
		}
		return Mono.defer(() -> ((AwaitedPart) part).resolve(exchange));
	}

	private static Function<ServerWebExchange, Mono<String>> missing(ClientAddressResolver clientAddresses,
			boolean reject) {
		return reject ? (exchange) -> Mono.empty()
				: (exchange) -> Mono.fromSupplier(() -> clientAddresses.resolve(exchange.getRequest()));
	}

	/**
	 * How one part reads its value, as it is, not yet bounded: {@code null} or nothing
	 * when the request lacks it, an empty value being none.
	 */
	private static Part part(KeySource source, String routeId, @Nullable KeyResolverBeans keyResolverBeans,
			ClientAddressResolver clientAddresses) {
		if (source instanceof KeySource.ApiKey) {
			InRequestPart apiKey = (exchange, knownApiKey) -> knownApiKey;
			return apiKey;
		}
		if (source instanceof KeySource.ClientIp) {
			InRequestPart clientIp = (exchange, knownApiKey) -> clientAddresses.resolve(exchange.getRequest());
			return clientIp;
		}
		if (source instanceof KeySource.Route) {
			InRequestPart route = (exchange, knownApiKey) -> routeId;
			return route;
		}
		if (source instanceof KeySource.Method) {
			InRequestPart method = (exchange, knownApiKey) -> exchange.getRequest().getMethod().name();
			return method;
		}
		if (source instanceof KeySource.Path) {
			InRequestPart path = (exchange, knownApiKey) -> exchange.getRequest()
				.getPath()
				.pathWithinApplication()
				.value();
			return path;
		}
		if (source instanceof KeySource.Header header) {
			String name = header.headerName();
			InRequestPart fromHeader = (exchange, knownApiKey) -> nonEmpty(
					exchange.getRequest().getHeaders().getFirst(name));
			return fromHeader;
		}
		if (source instanceof KeySource.Query query) {
			String name = query.parameterName();
			InRequestPart fromQuery = (exchange, knownApiKey) -> nonEmpty(
					exchange.getRequest().getQueryParams().getFirst(name));
			return fromQuery;
		}
		if (source instanceof KeySource.Cookie cookie) {
			String name = cookie.cookieName();
			InRequestPart fromCookie = (exchange, knownApiKey) -> {
				HttpCookie value = exchange.getRequest().getCookies().getFirst(name);
				return (value != null) ? nonEmpty(value.getValue()) : null;
			};
			return fromCookie;
		}
		if (source instanceof KeySource.Principal) {
			AwaitedPart principal = (exchange) -> exchange.getPrincipal()
				.map(java.security.Principal::getName)
				.filter((name) -> !name.isEmpty());
			return principal;
		}
		if (source instanceof KeySource.Claim claim) {
			String name = claim.claimName();
			AwaitedPart fromClaim = (exchange) -> exchange.getPrincipal()
				.flatMap((principal) -> Mono.justOrEmpty(OAuth2ClaimTiers.claim(principal, name)));
			return fromClaim;
		}
		if (source instanceof KeySource.Bean bean) {
			if (keyResolverBeans == null) {
				throw new IllegalArgumentException(
						"key " + source + " names a KeyResolver bean, which needs Spring Cloud Gateway");
			}
			Function<ServerWebExchange, Mono<String>> keyResolver = keyResolverBeans.named(bean.beanName());
			AwaitedPart fromBean = (exchange) -> keyResolver.apply(exchange).filter((key) -> !key.isEmpty());
			return fromBean;
		}
		throw new IllegalArgumentException("unhandled key part " + source);
	}

	private static @Nullable String nonEmpty(@Nullable String value) {
		return (value != null && !value.isEmpty()) ? value : null;
	}

	/**
	 * The values of a composite key's parts as one: each escaped, then joined by
	 * {@link #SEPARATOR}, which no escaped value holds.
	 */
	static String joined(List<String> values) {
		StringBuilder joined = new StringBuilder();
		for (int i = 0; i < values.size(); i++) {
			if (i > 0) {
				joined.append(SEPARATOR);
			}
			String value = values.get(i);
			for (int j = 0; j < value.length(); j++) {
				char c = value.charAt(j);
				if (c == '%') {
					joined.append("%25");
				}
				else if (c == SEPARATOR) {
					joined.append("%7C");
				}
				else {
					joined.append(c);
				}
			}
		}
		return joined.toString();
	}

	/**
	 * The detail of the rejection of a request that lacks its key: what it lacks, "the
	 * X-Tenant header", or for a composite key each part it may lack.
	 */
	static String missingKeyDetail(KeySource key) {
		List<String> lacking = new ArrayList<>();
		if (key instanceof KeySource.Composite composite) {
			for (KeySource part : composite.parts()) {
				if (!(part instanceof KeySource.ClientIp || part instanceof KeySource.Route
						|| part instanceof KeySource.Method || part instanceof KeySource.Path)) {
					lacking.add(lacking(part));
				}
			}
		}
		else {
			lacking.add(lacking(key));
		}
		String needs = (lacking.size() == 1) ? lacking.get(0)
				: String.join(", ", lacking.subList(0, lacking.size() - 1)) + " and " + lacking.get(lacking.size() - 1);
		return "This route is rate limited per client and needs " + needs + " to tell clients apart; the request "
				+ ((lacking.size() == 1) ? "has none." : "lacks one of them.");
	}

	private static String lacking(KeySource key) {
		if (key instanceof KeySource.Header header) {
			return "the " + header.headerName() + " header";
		}
		if (key instanceof KeySource.Principal) {
			return "an authenticated principal";
		}
		if (key instanceof KeySource.ApiKey) {
			return "a known API key";
		}
		if (key instanceof KeySource.Query query) {
			return "the " + query.parameterName() + " query parameter";
		}
		if (key instanceof KeySource.Cookie cookie) {
			return "the " + cookie.cookieName() + " cookie";
		}
		if (key instanceof KeySource.Claim claim) {
			return "the " + claim.claimName() + " claim of an OAuth2 token";
		}
		return "a client key";
	}

	/**
	 * How a part is read: from the request at once, or awaited.
	 */
	private sealed interface Part permits InRequestPart, AwaitedPart {

	}

	/**
	 * A part read from the request itself.
	 */
	@FunctionalInterface
	private non-sealed interface InRequestPart extends Part {

		/**
		 * @param knownApiKey the request's API key when it is a configured one,
		 * otherwise {@code null}
		 * @return the part's value, or {@code null} when the request lacks it
		 */
		@Nullable String read(ServerWebExchange exchange, @Nullable String knownApiKey);

	}

	/**
	 * A part that has to be waited for: the principal's name, a token's claim, a
	 * {@code KeyResolver} bean's answer.
	 */
	@FunctionalInterface
	private non-sealed interface AwaitedPart extends Part {

		/**
		 * @return the part's value, or nothing when the request lacks it
		 */
		Mono<String> resolve(ServerWebExchange exchange);

	}

}
