package dev.ratelimit.policy;

/**
 * Whose quota a request counts against, as configured by a policy's {@code key}.
 */
public sealed interface KeySource {

	/**
	 * The API key when the request carries a known one, otherwise the client IP.
	 */
	record ApiKey() implements KeySource {
	}

	/**
	 * The client IP, from the connection's remote address.
	 */
	record ClientIp() implements KeySource {
	}

	/**
	 * The authenticated principal's name, otherwise the client IP.
	 */
	record Principal() implements KeySource {
	}

	/**
	 * One shared quota per route.
	 */
	record Route() implements KeySource {
	}

	/**
	 * The value of a request header, otherwise the client IP.
	 *
	 * @param headerName the header's name
	 */
	record Header(String headerName) implements KeySource {
	}

	/**
	 * A Spring Cloud Gateway {@code KeyResolver} bean, otherwise the client IP.
	 *
	 * @param beanName the bean's name
	 */
	record Bean(String beanName) implements KeySource {
	}

}
