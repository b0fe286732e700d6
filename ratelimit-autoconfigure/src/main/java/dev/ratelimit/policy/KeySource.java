package dev.ratelimit.policy;

import java.util.List;
import java.util.StringJoiner;

/**
 * Whose quota a request counts against, as configured by a policy's {@code key}. Each
 * kind knows the value it is configured by, so that what is parsed at start-up and what
 * the actuator shows are the same words.
 */
public sealed interface KeySource {

	/**
	 * The policy's {@code key} as it is configured, such as {@code api-key} or
	 * {@code header:X-Tenant}.
	 */
	String configValue();

	/**
	 * Whether this key, or a part of it, is a Spring Cloud Gateway {@code KeyResolver}
	 * bean's, which needs the gateway.
	 */
	default boolean usesKeyResolverBean() {
		return this instanceof Bean;
	}

	/**
	 * The API key when the request carries a known one, otherwise the client IP.
	 */
	record ApiKey() implements KeySource {

		public static final String VALUE = "api-key";

		@Override
		public String configValue() {
			return VALUE;
		}

	}

	/**
	 * The client IP, from the connection's remote address.
	 */
	record ClientIp() implements KeySource {

		public static final String VALUE = "ip";

		@Override
		public String configValue() {
			return VALUE;
		}

	}

	/**
	 * The authenticated principal's name, otherwise the client IP.
	 */
	record Principal() implements KeySource {

		public static final String VALUE = "principal";

		@Override
		public String configValue() {
			return VALUE;
		}

	}

	/**
	 * One shared quota per route.
	 */
	record Route() implements KeySource {

		public static final String VALUE = "route";

		@Override
		public String configValue() {
			return VALUE;
		}

	}

	/**
	 * The value of a request header, otherwise the client IP.
	 *
	 * @param headerName the header's name
	 */
	record Header(String headerName) implements KeySource {

		public static final String PREFIX = "header:";

		@Override
		public String configValue() {
			return PREFIX + this.headerName;
		}

	}

	/**
	 * A Spring Cloud Gateway {@code KeyResolver} bean, otherwise the client IP.
	 *
	 * @param beanName the bean's name
	 */
	record Bean(String beanName) implements KeySource {

		@Override
		public String configValue() {
			return "#{@" + this.beanName + "}";
		}

	}

	/**
	 * The request's method, as it is written ({@code GET}); every request has one.
	 */
	record Method() implements KeySource {

		public static final String VALUE = "method";

		@Override
		public String configValue() {
			return VALUE;
		}

	}

	/**
	 * The request's path as the route's filter sees it: within the application's
	 * context path, without the query, not decoded; every request has one.
	 */
	record Path() implements KeySource {

		public static final String VALUE = "path";

		@Override
		public String configValue() {
			return VALUE;
		}

	}

	/**
	 * The first value of a query parameter, decoded, otherwise the client IP.
	 *
	 * @param parameterName the parameter's name
	 */
	record Query(String parameterName) implements KeySource {

		public static final String PREFIX = "query:";

		@Override
		public String configValue() {
			return PREFIX + this.parameterName;
		}

	}

	/**
	 * The value of a request cookie, otherwise the client IP.
	 *
	 * @param cookieName the cookie's name
	 */
	record Cookie(String cookieName) implements KeySource {

		public static final String PREFIX = "cookie:";

		@Override
		public String configValue() {
			return PREFIX + this.cookieName;
		}

	}

	/**
	 * A string claim of the OAuth2 token (a JWT or an introspected opaque token) Spring
	 * Security's resource server authenticated the request with, otherwise the client
	 * IP.
	 *
	 * @param claimName the claim's name
	 */
	record Claim(String claimName) implements KeySource {

		public static final String PREFIX = "claim:";

		@Override
		public String configValue() {
			return PREFIX + this.claimName;
		}

	}

	/**
	 * Several keys together: one quota per combination of their values. A request that
	 * lacks one of them lacks its key, and gets what its policy's {@code on-missing-key}
	 * says.
	 *
	 * @param parts the keys, in the order configured, at least two and none twice, none
	 * itself composite
	 */
	record Composite(List<KeySource> parts) implements KeySource {

		public Composite {
			parts = List.copyOf(parts);
		}

		/**
		 * The parts as a YAML flow sequence, as they are configured:
		 * {@code [ip, header:X-Tenant]}.
		 */
		@Override
		public String configValue() {
			StringJoiner joined = new StringJoiner(", ", "[", "]");
			this.parts.forEach((part) -> joined.add(part.configValue()));
			return joined.toString();
		}

		@Override
		public boolean usesKeyResolverBean() {
			return this.parts.stream().anyMatch(KeySource::usesKeyResolverBean);
		}

	}

}
