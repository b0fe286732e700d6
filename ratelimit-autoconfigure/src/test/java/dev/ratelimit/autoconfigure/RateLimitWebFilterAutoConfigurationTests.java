package dev.ratelimit.autoconfigure;

import dev.ratelimit.gateway.RateLimitGatewayFilterFactory;
import dev.ratelimit.gateway.RateLimitRouteValidator;
import dev.ratelimit.policy.InvalidRateLimitConfigurationException;
import dev.ratelimit.policy.RateLimitPolicies;
import dev.ratelimit.policy.TierSource;
import dev.ratelimit.store.caffeine.CaffeineBucketStore;
import dev.ratelimit.web.RateLimitProblemWriter;
import dev.ratelimit.web.RateLimitRejectionHandler;
import dev.ratelimit.web.RateLimitWebFilter;
import dev.ratelimit.web.RequestJudges;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The web filter of a plain WebFlux application: policies and stores load without
 * Spring Cloud Gateway, the filter only for a reactive web application with
 * {@code ratelimit.web.routes}, and its routes are checked at start-up.
 */
class RateLimitWebFilterAutoConfigurationTests {

	private static final String[] ORDERS = { "ratelimit.policies.orders.tiers.anonymous[0].algorithm=fixed-window",
			"ratelimit.policies.orders.tiers.anonymous[0].limit=60",
			"ratelimit.policies.orders.tiers.anonymous[0].window=1m" };

	private static final String[] ROUTE = { "ratelimit.web.routes[0].paths[0]=/api/orders/**",
			"ratelimit.web.routes[0].policy=orders" };

	private final ReactiveWebApplicationContextRunner withoutGateway = new ReactiveWebApplicationContextRunner()
		.withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway"))
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitDisabledAutoConfiguration.class, RedisStoreAutoConfiguration.class,
				RateLimitWebFilterAutoConfiguration.class))
		.withPropertyValues(ORDERS);

	@Test
	void withoutTheGatewayPoliciesStoresAndTheWebFilterLoadButNoGatewayFilter() {
		this.withoutGateway.withPropertyValues(ROUTE).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RateLimitPolicies.class).policy("orders")).isNotNull();
			assertThat(context).hasSingleBean(CaffeineBucketStore.class);
			assertThat(context).hasSingleBean(RequestJudges.class);
			assertThat(context).getBean(RateLimitRejectionHandler.class).isInstanceOf(RateLimitProblemWriter.class);
			assertThat(context).hasSingleBean(RateLimitWebFilter.class);
			assertThat(context).doesNotHaveBean(RateLimitGatewayFilterFactory.class);
			assertThat(context).doesNotHaveBean(RateLimitRouteValidator.class);
		});
	}

	@Test
	void withoutWebRoutesThereIsNoWebFilter() {
		this.withoutGateway.run((context) -> {
			assertThat(context).hasSingleBean(RateLimitPolicies.class);
			assertThat(context).doesNotHaveBean(RateLimitWebFilter.class);
		});
	}

	@Test
	void aServletOrNonWebApplicationGetsNoWebFilter() {
		new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway"))
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
					RateLimitWebFilterAutoConfiguration.class))
			.withPropertyValues(ORDERS)
			.withPropertyValues(ROUTE)
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitPolicies.class);
				assertThat(context).doesNotHaveBean(RateLimitWebFilter.class);
			});
	}

	@Test
	void disabledRateLimitingHasNoWebFilter() {
		this.withoutGateway.withPropertyValues(ROUTE).withPropertyValues("ratelimit.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(RateLimitWebFilter.class);
			assertThat(context).doesNotHaveBean(RateLimitPolicies.class);
		});
	}

	@Test
	void withTheGatewayBothFiltersLoad() {
		new ReactiveWebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
					RateLimitWebFilterAutoConfiguration.class))
			.withPropertyValues(ORDERS)
			.withPropertyValues(ROUTE)
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitGatewayFilterFactory.class);
				assertThat(context).hasSingleBean(RateLimitWebFilter.class);
			});
	}

	@Test
	void aWebRouteMayUseAKeyResolverBeanWhenTheGatewayIsPresent() {
		new ReactiveWebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
					RateLimitWebFilterAutoConfiguration.class))
			.withBean("tenants", KeyResolver.class, () -> (exchange) -> Mono.just("t"))
			.withPropertyValues(ORDERS)
			.withPropertyValues(ROUTE)
			.withPropertyValues("ratelimit.policies.orders.key=#{@tenants}")
			.run((context) -> assertThat(context).hasSingleBean(RateLimitWebFilter.class));
	}

	@Test
	void aWebRouteWhosePolicyIsKeyedByAKeyResolverFailsWithoutTheGateway() {
		this.withoutGateway.withPropertyValues(ROUTE)
			.withPropertyValues("ratelimit.policies.orders.key=#{@tenants}")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.web.routes[0].policy: was 'orders', must name a policy whose key "
						+ "works without Spring Cloud Gateway: ratelimit.policies.orders.key is #{@tenants}, which "
						+ "names a gateway KeyResolver bean, and the gateway is not on the classpath"));
		this.withoutGateway.withPropertyValues(ROUTE)
			.withPropertyValues("ratelimit.policies.orders.key=ip,#{@tenants}")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.policies.orders.key is [ip, #{@tenants}], which names a gateway "
						+ "KeyResolver bean"));
	}

	@Test
	void invalidWebRoutesFailWithEveryProblem() {
		this.withoutGateway
			.withPropertyValues("ratelimit.web.routes[0].paths[0]=/api/{id", "ratelimit.web.routes[0].policy=orders",
					"ratelimit.web.routes[1].paths[0]=/b/**", "ratelimit.web.routes[1].methods[0]=get",
					"ratelimit.web.routes[1].methods[1]=GE T", "ratelimit.web.routes[1].policy=nope",
					"ratelimit.web.routes[2].policy=orders", "ratelimit.web.routes[3].paths[0]=api/**",
					"ratelimit.web.routes[3].policy=orders", "ratelimit.web.routes[4].paths[0]=/b/**",
					"ratelimit.web.routes[4].policy=orders")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.web.routes[0].paths[0]: was '/api/{id', must be a valid path pattern")
				.hasMessageContaining("ratelimit.web.routes[1].methods[0]: was 'get', must be written GET: methods "
						+ "are case-sensitive (RFC 9110 section 9.1)")
				.hasMessageContaining("ratelimit.web.routes[1].methods[1]: was 'GE T', must be an HTTP method")
				.hasMessageContaining("ratelimit.web.routes[1].policy: was 'nope', must name a policy defined under "
						+ "ratelimit.policies (defined: [orders])")
				.hasMessageContaining("ratelimit.web.routes[2].paths: was [], must list at least one path pattern")
				.hasMessageContaining("ratelimit.web.routes[3].paths[0]: was 'api/**', must be a path pattern "
						+ "starting with /")
				.hasMessageContaining("ratelimit.web.routes[4].id: was '/b/**', must be unique among the web routes"));
	}

	@Test
	void aRejectionHandlerBeanReplacesTheProblemWriter() {
		RateLimitRejectionHandler handler = (exchange, rejection) -> exchange.getResponse().setComplete();
		this.withoutGateway.withPropertyValues(ROUTE)
			.withBean(RateLimitRejectionHandler.class, () -> handler)
			.run((context) -> assertThat(context.getBean(RateLimitRejectionHandler.class)).isSameAs(handler));
	}

	@Test
	void theTierSourceAndCostHeaderAreBoundIntoThePolicies() {
		this.withoutGateway.withPropertyValues("ratelimit.tiers.claim=plan", "ratelimit.policies.orders.cost-header=X-Cost")
			.run((context) -> {
				RateLimitPolicies policies = context.getBean(RateLimitPolicies.class);
				assertThat(policies.tierSource()).isEqualTo(new TierSource.Claim("plan"));
				assertThat(policies.policy("orders").costHeader()).isEqualTo("X-Cost");
			});
		this.withoutGateway.withPropertyValues("ratelimit.tiers.header=X-Plan")
			.run((context) -> assertThat(context.getBean(RateLimitPolicies.class).tierSource())
				.isEqualTo(new TierSource.Header("X-Plan")));
	}

	@Test
	void aClaimKeyWithoutSpringSecuritysResourceServerFailsAtStartUpWhileOtherPartsNeedNone() {
		ReactiveWebApplicationContextRunner withoutResourceServer = new ReactiveWebApplicationContextRunner()
			.withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway",
					"org.springframework.security.oauth2.server.resource"))
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
					RateLimitWebFilterAutoConfiguration.class))
			.withPropertyValues(ORDERS)
			.withPropertyValues(ROUTE);
		withoutResourceServer.withPropertyValues("ratelimit.policies.orders.key=ip,claim:tenant")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.policies.orders.key[1]: was 'claim:tenant', needs Spring "
						+ "Security's OAuth2 resource server (spring-boot-starter-oauth2-resource-server) on the "
						+ "classpath"));
		withoutResourceServer
			.withPropertyValues("ratelimit.policies.orders.key=ip,method,path,query:page,cookie:session,principal")
			.run((context) -> assertThat(context).hasSingleBean(RateLimitWebFilter.class));
	}

	@Test
	void aTierClaimWithoutSpringSecuritysResourceServerFailsAtStartUp() {
		new ReactiveWebApplicationContextRunner()
			.withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway",
					"org.springframework.security.oauth2.server.resource"))
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
			.withPropertyValues(ORDERS)
			.withPropertyValues("ratelimit.tiers.claim=plan")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.tiers.claim: was 'plan', needs Spring Security's OAuth2 resource "
						+ "server (spring-boot-starter-oauth2-resource-server) on the classpath"));
	}

}
