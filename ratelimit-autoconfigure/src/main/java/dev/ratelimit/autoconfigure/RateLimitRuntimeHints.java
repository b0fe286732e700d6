package dev.ratelimit.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * What the starter reads by name, for an application built with Spring AOT (a native
 * image includes only the resources and reflection it is told of): the Lua sources the
 * Redis store assembles its scripts from, the dashboard page, the bundled 429 sentences,
 * and the {@code RateLimit} filter's arguments, which Spring Cloud Gateway binds to
 * their class by reflection (its own hints cover only the classes of its own package).
 * Properties bound by {@code @ConfigurationProperties} and the endpoint's results are
 * hinted by Spring Boot.
 */
final class RateLimitRuntimeHints implements RuntimeHintsRegistrar {

	static final String LUA_SOURCES = "dev/ratelimit/store/redis/*.lua";

	static final String DASHBOARD_PAGE = "dev/ratelimit/actuate/dashboard.html";

	/**
	 * The bundled messages and any translation of them, as
	 * {@code ResourceBundleMessageSource} reads them with an encoding: by resource name.
	 */
	static final String MESSAGES = "dev/ratelimit/web/ratelimit-messages*.properties";

	static final String FILTER_CONFIG = "dev.ratelimit.gateway.RateLimitGatewayFilterFactory$Config";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(LUA_SOURCES).registerPattern(DASHBOARD_PAGE).registerPattern(MESSAGES);
		// Spring Cloud Gateway binds the arguments with Boot's Binder, as Boot binds properties.
		if (ClassUtils.isPresent(FILTER_CONFIG, classLoader)) {
			BindableRuntimeHintsRegistrar.forTypes(ClassUtils.resolveClassName(FILTER_CONFIG, classLoader))
				.registerHints(hints, classLoader);
		}
	}

}
