package dev.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.policy.RateLimitPolicy;
import dev.ratelimit.web.RateLimitWebFilter;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Routes naming several policies, checked at start-up: the shortcut and the long forms,
 * and each way a list can be wrong (none, a policy twice, one that is no policy, an
 * argument that names none, a route with two {@code RateLimit} filters, policies that
 * cannot be judged together), in gateway routes and in the plain WebFlux routes.
 */
class SeveralPoliciesConfigurationTests {

	private static final String ROUTE = "spring.cloud.gateway.server.webflux.routes[0]";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitDisabledAutoConfiguration.class))
		.withPropertyValues(policy("orders", 60, "1m"))
		.withPropertyValues(policy("search", 100, "1s"));

	private final ReactiveWebApplicationContextRunner withoutGateway = new ReactiveWebApplicationContextRunner()
		.withClassLoader(new FilteredClassLoader("org.springframework.cloud.gateway"))
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitDisabledAutoConfiguration.class, RedisStoreAutoConfiguration.class,
				RateLimitWebFilterAutoConfiguration.class))
		.withPropertyValues(policy("orders", 60, "1m"))
		.withPropertyValues(policy("search", 100, "1s"))
		.withPropertyValues("ratelimit.web.routes[0].paths[0]=/api/**");

	@Test
	void aFilterNamesSeveralPoliciesInTheShortcutOrEitherLongForm() {
		FilterDefinition list = longForm();
		list.addArg("policies.0", "search");
		list.addArg("policies.1", "orders");
		FilterDefinition commas = longForm();
		commas.addArg("policies", "orders, search");
		FilterDefinition one = longForm();
		one.addArg("policy", "orders");
		for (FilterDefinition filter : List.of(new FilterDefinition("RateLimit=orders,search"), list, commas, one)) {
			this.contextRunner.withBean(GatewayProperties.class, () -> gateway(filter))
				.run((context) -> assertThat(context).hasNotFailed());
		}
	}

	@Test
	void aPolicyNamedTwiceOrNoneOfThePoliciesOrNoneAtAllStopsTheStartNamingTheFilter() {
		FilterDefinition empty = longForm();
		empty.addArg("policies", "");
		this.contextRunner
			.withBean(GatewayProperties.class,
					() -> gateway(new FilterDefinition("RateLimit=orders,orders"), new FilterDefinition("RateLimit=orders,serch"),
							empty))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(ROUTE + ".filters[0]: was RateLimit=orders,orders, must name each policy once, but "
						+ "names 'orders' twice")
				.hasMessageContaining(ROUTE + ".filters[1]: was RateLimit=orders,serch, must name policies defined "
						+ "under ratelimit.policies, but 'serch' is none of them (defined: [orders, search])")
				.hasMessageContaining(ROUTE + ".filters[2]: was RateLimit=, must name a policy defined under "
						+ "ratelimit.policies (defined: [orders, search])"));
	}

	@Test
	void anArgumentThatNamesNoPoliciesStopsTheStart() {
		FilterDefinition misspelt = longForm();
		misspelt.addArg("polices", "orders");
		this.contextRunner.withBean(GatewayProperties.class, () -> gateway(misspelt))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(ROUTE + ".filters[0].args.polices: was 'orders', must not be set: the RateLimit "
						+ "filter takes only policies (or policy for one)"));
	}

	@Test
	void twoRateLimitFiltersOnOneRouteStopTheStartPointingToOneFilterNamingEveryPolicy() {
		GatewayProperties twoOnTheRoute = gateway(new FilterDefinition("RateLimit=orders"),
				new FilterDefinition("StripPrefix=1"), new FilterDefinition("RateLimit=search"));
		this.contextRunner.withBean(GatewayProperties.class, () -> twoOnTheRoute)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(ROUTE + ".filters[2]: was RateLimit=search, must not be a second RateLimit "
						+ "filter of route 'orders' (" + ROUTE + ".filters[0] is RateLimit=orders)")
				.hasMessageContaining("name every policy in one filter, RateLimit=orders,search, which judges them "
						+ "together"));
		GatewayProperties withADefault = gateway(new FilterDefinition("RateLimit=orders"));
		withADefault.setDefaultFilters(List.of(new FilterDefinition("RateLimit=search")));
		this.contextRunner.withBean(GatewayProperties.class, () -> withADefault)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(ROUTE + ".filters[0]: was RateLimit=orders, must not be a second RateLimit "
						+ "filter of route 'orders' (spring.cloud.gateway.server.webflux.default-filters[0] is "
						+ "RateLimit=search)")
				.hasMessageContaining("RateLimit=search,orders"));
	}

	@Test
	void policiesThatCannotBeJudgedTogetherStopTheStartSayingWhy() {
		this.contextRunner.withPropertyValues(policy("per-client", 60, "1h"))
			.withPropertyValues("ratelimit.policies.search.tiers.anonymous[0].name=burst",
					"ratelimit.policies.per-client.tiers.anonymous[0].name=burst")
			.withBean(GatewayProperties.class,
					() -> gateway(new FilterDefinition("RateLimit=orders,per-client"),
							new FilterDefinition("RateLimit=search,per-client")))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(ROUTE + ".filters[0]: was RateLimit=orders,per-client, must name policies "
						+ "whose limits differ in quota with ratelimit.headers=draft-06: "
						+ "ratelimit.policies.orders.tiers.anonymous[0] and "
						+ "ratelimit.policies.per-client.tiers.anonymous[0] both have a quota of 60")
				.hasMessageContaining(ROUTE + ".filters[1]: was RateLimit=search,per-client, must name policies whose "
						+ "limits have names of their own: ratelimit.policies.search.tiers.anonymous[0] and "
						+ "ratelimit.policies.per-client.tiers.anonymous[0] are both named 'burst'"));
	}

	@Test
	void aPolicyOnTheHybridStoreMustComeLastAndNotWithAPolicyThatShapes() {
		this.contextRunner.withPropertyValues(policy("leases", 1000, "1d"))
			.withPropertyValues("ratelimit.policies.leases.store=hybrid",
					"ratelimit.policies.queue.tiers.anonymous[0].algorithm=leaky-bucket",
					"ratelimit.policies.queue.tiers.anonymous[0].capacity=5",
					"ratelimit.policies.queue.tiers.anonymous[0].drain-rate=1",
					"ratelimit.policies.queue.tiers.anonymous[0].shaping.max-delay=1s")
			.withBean(GatewayProperties.class, () -> gateway(new FilterDefinition("RateLimit=leases,queue")))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(ROUTE + ".filters[0]: was RateLimit=leases,queue, must name policy 'leases', "
						+ "on store hybrid, last: its nodes spend leases in their own memory and so cannot give back "
						+ "what a decision took")
				.hasMessageContaining("must not name policy 'leases', on store hybrid, with policy 'queue', which "
						+ "shapes"));
	}

	@Test
	void aWebRouteNamesSeveralPoliciesJudgedTogether() {
		this.withoutGateway.withPropertyValues("ratelimit.web.routes[0].policies=search,orders").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RateLimitWebFilter.class).routes().get(0).policies())
				.extracting(RateLimitPolicy::id)
				.containsExactly("search", "orders");
		});
		this.withoutGateway.withPropertyValues("ratelimit.web.routes[0].policy=search,orders")
			.run((context) -> assertThat(context.getBean(RateLimitWebFilter.class).routes().get(0).policies())
				.extracting(RateLimitPolicy::id)
				.containsExactly("search", "orders"));
	}

	@Test
	void aWebRouteNamingItsPoliciesTwiceOrAPolicyTwiceOrAnUnknownOneStopsTheStart() {
		this.withoutGateway
			.withPropertyValues("ratelimit.web.routes[0].policy=orders", "ratelimit.web.routes[0].policies=search")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.web.routes[0].policies: was [search], must not be set together with "
						+ "ratelimit.web.routes[0].policy ('orders')"));
		this.withoutGateway.withPropertyValues("ratelimit.web.routes[0].policies=orders,serch,orders")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.web.routes[0].policies: was [orders, serch, orders], must name "
						+ "policies defined under ratelimit.policies, but 'serch' is none of them")
				.hasMessageContaining("must name each policy once, but names 'orders' twice"));
	}

	private static String[] policy(String id, int limit, String window) {
		String prefix = "ratelimit.policies." + id + ".tiers.anonymous[0].";
		return new String[] { prefix + "algorithm=fixed-window", prefix + "limit=" + limit, prefix + "window=" + window };
	}

	private static FilterDefinition longForm() {
		FilterDefinition filter = new FilterDefinition();
		filter.setName("RateLimit");
		return filter;
	}

	private static GatewayProperties gateway(FilterDefinition... filters) {
		GatewayProperties gateway = new GatewayProperties();
		RouteDefinition route = new RouteDefinition("orders=http://localhost,Path=/orders/**");
		route.setFilters(new ArrayList<>(List.of(filters)));
		gateway.setRoutes(List.of(route));
		return gateway;
	}

}
