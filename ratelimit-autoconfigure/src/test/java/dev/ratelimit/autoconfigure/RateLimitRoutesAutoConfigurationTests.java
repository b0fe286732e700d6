package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.gateway.PassThroughRateLimiter;
import dev.ratelimit.gateway.PolicyRateLimiter;
import dev.ratelimit.gateway.PolicyRequestRateLimiterGatewayFilterFactory;
import dev.ratelimit.gateway.RateLimitFilters;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.LivePolicies;
import dev.ratelimit.policy.RateLimitPolicies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Mono;

import org.springframework.aot.AotDetector;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.OrderedGatewayFilter;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.handler.predicate.PredicateDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@ExtendWith(OutputCaptureExtension.class)
class RateLimitRoutesAutoConfigurationTests {

	private static final String[] TWO_POLICIES = {
			"ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
			"ratelimit.policies.orders.tiers.anonymous[0].limit=60",
			"ratelimit.policies.orders.tiers.anonymous[0].window=1m",
			"ratelimit.policies.search.tiers.anonymous[0].algorithm=token-bucket",
			"ratelimit.policies.search.tiers.anonymous[0].capacity=5",
			"ratelimit.policies.search.tiers.anonymous[0].refill-rate=1" };

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitDisabledAutoConfiguration.class, RateLimitRoutesAutoConfiguration.class));

	@Test
	void registersOneRateLimiterPerPolicyNamedAfterIt() {
		this.contextRunner.withPropertyValues(TWO_POLICIES).run((context) -> {
			assertThat(context.getBean("ordersRateLimiter", PolicyRateLimiter.class).policyId()).isEqualTo("orders");
			assertThat(context.getBean("searchRateLimiter", PolicyRateLimiter.class).policyId()).isEqualTo("search");
		});
	}

	@Test
	void aValueThatDoesNotConvertIsInOurReport() {
		this.contextRunner.withPropertyValues(TWO_POLICIES)
			.withPropertyValues("ratelimit.policies.orders.shadow=maybe")
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.policies.orders.shadow: was maybe, must be true or false"));
	}

	@Test
	void policyRateLimitersDoNotCompeteForInjectionByType() {
		RateLimiter<Object> applications = new PassThroughRateLimiter();
		this.contextRunner.withPropertyValues(TWO_POLICIES)
			.withBean("applicationRateLimiter", RateLimiter.class, () -> applications)
			.run((context) -> assertThat(context.getBeanProvider(RateLimiter.class).getIfUnique())
				.isSameAs(applications));
	}

	@Test
	void definesRequestRateLimiterWhoseRoutesMustNameALimiter() {
		this.contextRunner.withPropertyValues(TWO_POLICIES).run((context) -> {
			RequestRateLimiterGatewayFilterFactory factory = context
				.getBean(RequestRateLimiterGatewayFilterFactory.class);
			assertThat(factory).isInstanceOf(PolicyRequestRateLimiterGatewayFilterFactory.class);
			assertThat(factory.name()).isEqualTo("RequestRateLimiter");
			RequestRateLimiterGatewayFilterFactory.Config config = new RequestRateLimiterGatewayFilterFactory.Config();
			config.setRouteId("orders-route");
			assertThatExceptionOfType(InvalidRateLimitConfigurationException.class)
				.isThrownBy(() -> factory.apply(config))
				.withMessageContaining("route 'orders-route' filter RequestRateLimiter argument rate-limiter")
				.withMessageContaining("#{@ordersRateLimiter}, #{@searchRateLimiter}");
			config.setRateLimiter(context.getBean("ordersRateLimiter", RateLimiter.class));
			assertThat(factory.apply(config)).isNotNull();
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesRequestRateLimiter() {
		RequestRateLimiterGatewayFilterFactory own = new RequestRateLimiterGatewayFilterFactory(
				new PassThroughRateLimiter(), (exchange) -> Mono.just("key"));
		this.contextRunner.withPropertyValues(TWO_POLICIES)
			.withBean(RequestRateLimiterGatewayFilterFactory.class, () -> own)
			.run((context) -> assertThat(context.getBean(RequestRateLimiterGatewayFilterFactory.class)).isSameAs(own));
	}

	@Test
	void javaRouteFiltersComeFromTheRateLimitFilterFactory() {
		this.contextRunner.withPropertyValues(TWO_POLICIES).run((context) -> {
			GatewayFilter filter = context.getBean(RateLimitFilters.class).policy("orders");
			assertThat(RateLimitFilters.policyIds(filter)).containsExactly("orders");
			assertThat(RateLimitFilters.policyIds(new OrderedGatewayFilter(filter, 0))).containsExactly("orders");
			assertThat(RateLimitFilters.policyIds((exchange, chain) -> chain.filter(exchange))).isEmpty();
		});
	}

	@Test
	void disabledJavaRouteFiltersLetEverythingThroughWithoutHeaders() {
		this.contextRunner.withPropertyValues(TWO_POLICIES).withPropertyValues("ratelimit.enabled=false").run((context) -> {
			GatewayFilter filter = context.getBean(RateLimitFilters.class).policy("not-checked-when-disabled");
			MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/orders"));
			AtomicBoolean passed = new AtomicBoolean();
			filter.filter(exchange, (forwarded) -> {
				passed.set(true);
				return Mono.empty();
			}).block();
			assertThat(passed).isTrue();
			assertThat(exchange.getResponse().getHeaders().isEmpty()).isTrue();
		});
	}

	@Test
	void aRequestRateLimiterRouteMayNameTheApplicationsOwnRateLimiterOrAPolicys() {
		this.contextRunner.withPropertyValues(TWO_POLICIES)
			.withBean("legacyRateLimiter", RateLimiter.class, PassThroughRateLimiter::new)
			.withBean(GatewayProperties.class,
					() -> gatewayProperties("#{@legacyRateLimiter}", "#{@'ordersRateLimiter'}"))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aRequestRateLimiterRouteNamingNoBeanFailsNamingTheRouteAndThePolicyBeans() {
		this.contextRunner.withPropertyValues(TWO_POLICIES)
			.withBean(GatewayProperties.class, () -> gatewayProperties("#{@ordersRateLimiter}", "#{@legacyRateLimitr}"))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("spring.cloud.gateway.server.webflux.routes[1].filters[0]: was RequestRateLimiter "
						+ "rate-limiter=#{@legacyRateLimitr}, must name a RateLimiter bean: no bean is named "
						+ "'legacyRateLimitr' (the policies' beans: [ordersRateLimiter, searchRateLimiter])")
				.hasMessageNotContaining("routes[0]"));
	}

	@Test
	void aRequestRateLimiterRouteNamingAPolicyOfSomeMethodsPathsOrAddressesFailsNamingTheRoute() {
		for (String scope : new String[] { "methods=POST", "paths=/api/**", "exempt.addresses=10.0.0.0/8" }) {
			this.contextRunner.withPropertyValues(TWO_POLICIES)
				.withPropertyValues("ratelimit.policies.orders." + scope)
				.withBean(GatewayProperties.class, () -> gatewayProperties("#{@searchRateLimiter}",
						"#{@ordersRateLimiter}"))
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(InvalidRateLimitConfigurationException.class)
					.hasMessageContaining("spring.cloud.gateway.server.webflux.routes[1].filters[0]: was "
							+ "RequestRateLimiter rate-limiter=#{@ordersRateLimiter}, must name the RateLimiter bean "
							+ "of a policy that applies to every request: policy 'orders' applies to some methods or "
							+ "paths only, or exempts client addresses (methods, paths, exempt.addresses), and "
							+ "RequestRateLimiter shows its RateLimiter only a key; use the RateLimit filter with "
							+ "policy=orders")
					.hasMessageNotContaining("routes[0]"));
		}
	}

	@Test
	void aRequestRateLimiterExemptsTheApiKeysAndTiersItsKeysName() {
		this.contextRunner.withPropertyValues(TWO_POLICIES)
			.withPropertyValues("ratelimit.tiers.api-keys.vip-key=anonymous",
					"ratelimit.policies.orders.exempt.api-keys=vip-key")
			.withBean(GatewayProperties.class, () -> gatewayProperties("#{@ordersRateLimiter}"))
			.run((context) -> {
				RateLimiter<?> orders = context.getBean("ordersRateLimiter", RateLimiter.class);
				RateLimiter.Response exempt = orders.isAllowed("route-0", "vip-key").block();
				assertThat(exempt.isAllowed()).isTrue();
				assertThat(exempt.getHeaders()).isEmpty();
				assertThat(orders.isAllowed("route-0", "someone").block().getHeaders())
					.containsEntry("RateLimit-Remaining", "59");
			});
	}

	@Test
	void aReloadLeavingARequestRateLimiterRouteNamingNoBeanIsRejected(CapturedOutput output) {
		String route = "spring.cloud.gateway.server.webflux.routes[0].";
		this.contextRunner.withPropertyValues(TWO_POLICIES).run((context) -> {
			RateLimitPolicies inForce = context.getBean(LivePolicies.class).get();
			String[] change = { route + "id=legacy", route + "uri=http://localhost", route + "predicates[0]=Path=/l/**",
					route + "filters[0].name=RequestRateLimiter",
					route + "filters[0].args.rate-limiter=#{@legacyRateLimitr}",
					"ratelimit.policies.orders.tiers.anonymous[0].limit=7" };
			TestPropertyValues.of(change).applyTo(context);
			context.publishEvent(new EnvironmentChangeEvent(context,
					Set.of(route + "filters[0].args.rate-limiter", "ratelimit.policies.orders.tiers.anonymous[0].limit")));
			assertThat(context.getBean(LivePolicies.class).get()).isSameAs(inForce);
			assertThat(output).contains("Rate limit settings change rejected")
				.contains("spring.cloud.gateway.server.webflux.routes[0].filters[0]: was RequestRateLimiter "
						+ "rate-limiter=#{@legacyRateLimitr}, must name a RateLimiter bean");
		});
	}

	@Test
	void unknownKeysAndRouteFiltersNamingNothingAreOneReport() {
		String routes = "spring.cloud.gateway.server.webflux.routes";
		this.contextRunner.withPropertyValues(TWO_POLICIES)
			.withPropertyValues("ratelimit.policies.orders.shadwo=true", routes + "[0].id=orders",
					routes + "[0].uri=http://localhost", routes + "[0].predicates[0]=Path=/o/**",
					routes + "[0].filters[0]=RateLimit=ordres", routes + "[1].id=legacy",
					routes + "[1].uri=http://localhost", routes + "[1].predicates[0]=Path=/l/**",
					routes + "[1].filters[0].name=RequestRateLimiter",
					routes + "[1].filters[0].args.rate-limiter=#{@legacyRateLimitr}")
			.run((context) -> assertThat(context).getFailure()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.policies.orders.shadwo: was true, is not a known key; did you mean "
						+ "shadow?")
				.hasMessageContaining(routes + "[0].filters[0]: was RateLimit=ordres, must name a policy defined "
						+ "under ratelimit.policies (defined: [orders, search])")
				.hasMessageContaining(routes + "[1].filters[0]: was RequestRateLimiter rate-limiter="
						+ "#{@legacyRateLimitr}, must name a RateLimiter bean: no bean is named 'legacyRateLimitr' "
						+ "(the policies' beans: [ordersRateLimiter, searchRateLimiter])"));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = { "tiers.anonymous[0].limit=0 | tiers.anonymous[0].limit: was 0",
			"sotre=redis | sotre: was redis, is not a known key" })
	void aPolicysOwnProblemAndARouteFilterNamingNothingAreOneReport(String problem, String reported) {
		String routes = "spring.cloud.gateway.server.webflux.routes";
		this.contextRunner.withPropertyValues(TWO_POLICIES)
			.withPropertyValues("ratelimit.policies.orders." + problem, routes + "[0].id=orders",
					routes + "[0].uri=http://localhost", routes + "[0].predicates[0]=Path=/o/**",
					routes + "[0].filters[0]=RateLimit=ordres")
			.run((context) -> assertThat(context).getFailure()
				.satisfies((failure) -> assertThat(failure).hasMessageContaining("ratelimit.policies.orders." + reported)
					.hasMessageContaining(routes + "[0].filters[0]: was RateLimit=ordres, must name a policy defined "
							+ "under ratelimit.policies (defined: [orders, search])")));
	}

	@Test
	void aReloadWithAPolicysOwnProblemAndARouteFilterNamingNothingIsRejectedInOneReport(CapturedOutput output) {
		String route = "spring.cloud.gateway.server.webflux.routes[0].";
		this.contextRunner.withPropertyValues(TWO_POLICIES).run((context) -> {
			RateLimitPolicies inForce = context.getBean(LivePolicies.class).get();
			TestPropertyValues.of(route + "id=orders", route + "uri=http://localhost", route + "predicates[0]=Path=/o/**",
					route + "filters[0]=RateLimit=ordres", "ratelimit.policies.orders.tiers.anonymous[0].limit=0")
				.applyTo(context);
			context.publishEvent(new EnvironmentChangeEvent(context,
					Set.of(route + "filters[0]", "ratelimit.policies.orders.tiers.anonymous[0].limit")));
			assertThat(context.getBean(LivePolicies.class).get()).isSameAs(inForce);
			assertThat(output).contains("Rate limit settings change rejected")
				.contains("ratelimit.policies.orders.tiers.anonymous[0].limit: was 0, must be a positive number")
				.contains(route + "filters[0]: was RateLimit=ordres, must name a policy defined under "
						+ "ratelimit.policies (defined: [orders, search])");
		});
	}

	/**
	 * One route for each {@code rate-limiter} argument of a {@code RequestRateLimiter}
	 * filter.
	 */
	private static GatewayProperties gatewayProperties(String... rateLimiters) {
		GatewayProperties properties = new GatewayProperties();
		List<RouteDefinition> routes = new ArrayList<>();
		for (String rateLimiter : rateLimiters) {
			RouteDefinition route = new RouteDefinition();
			route.setId("route-" + routes.size());
			route.setUri(URI.create("http://localhost"));
			route.setPredicates(List.of(new PredicateDefinition("Path=/" + route.getId() + "/**")));
			FilterDefinition filter = new FilterDefinition();
			filter.setName("RequestRateLimiter");
			filter.addArg("rate-limiter", rateLimiter);
			route.setFilters(List.of(filter));
			routes.add(route);
		}
		properties.setRoutes(routes);
		return properties;
	}

	@Test
	void disabledRateLimitersLetEverythingThrough() {
		this.contextRunner.withPropertyValues(TWO_POLICIES).withPropertyValues("ratelimit.enabled=false").run((context) -> {
			RateLimiter<?> orders = context.getBean("ordersRateLimiter", RateLimiter.class);
			assertThat(orders).isInstanceOf(PassThroughRateLimiter.class);
			RateLimiter.Response response = orders.isAllowed("route", "key").block();
			assertThat(response.isAllowed()).isTrue();
			assertThat(response.getHeaders()).isEqualTo(Map.of());
		});
	}

	@ParameterizedTest
	@CsvSource({ "true, PolicyRateLimiter", "false, PassThroughRateLimiter" })
	void theRateLimiterBeansCanBeProcessedAheadOfTime(boolean enabled, String rateLimiterClass) throws IOException {
		// Spring AOT generates code for each bean definition: an instance supplier has none.
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			TestPropertyValues.of(TWO_POLICIES).and("ratelimit.enabled=" + enabled).applyTo(context);
			context.register(RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class,
					RateLimitRoutesAutoConfiguration.class);
			InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
			DefaultGenerationContext generation = new DefaultGenerationContext(
					new ClassNameGenerator(ClassName.get(RateLimitRoutesAutoConfigurationTests.class)), files);
			new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
			generation.writeGeneratedContent();
			List<String> sources = new ArrayList<>();
			for (String path : files.getGeneratedFiles(Kind.SOURCE).keySet()) {
				sources.add(files.getGeneratedFileContent(Kind.SOURCE, path));
			}
			assertThat(sources).anySatisfy((source) -> assertThat(source)
				.contains("BeanDefinition getOrdersRateLimiterBeanDefinition()")
				.contains("new RootBeanDefinition(" + rateLimiterClass + ".class)"));
		}
	}

	@Test
	void withGeneratedCodeTheBuildTimeDefinitionsAreTakenAsTheyAre(CapturedOutput output) {
		DefaultListableBeanFactory registry = new DefaultListableBeanFactory();
		RootBeanDefinition generated = new RootBeanDefinition(PolicyRateLimiter.class);
		registry.registerBeanDefinition("ordersRateLimiter", generated);
		MockEnvironment environment = new MockEnvironment().withProperty(
				"ratelimit.policies.orders.tiers.anonymous[0].algorithm", "fixed-window");
		System.setProperty(AotDetector.AOT_ENABLED, "true");
		try {
			new PolicyRateLimiterRegistrar(environment).postProcessBeanDefinitionRegistry(registry);
		}
		finally {
			System.clearProperty(AotDetector.AOT_ENABLED);
		}
		assertThat(registry.getBeanDefinition("ordersRateLimiter")).isSameAs(generated);
		assertThat(output).doesNotContain("is not offered as a RateLimiter bean");
	}

}
