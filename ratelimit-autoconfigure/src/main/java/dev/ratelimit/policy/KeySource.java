package dev.ratelimit.policy;

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

}
