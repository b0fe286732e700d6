package dev.ratelimit.store.redis;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.TemporalAdjusters;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.e2e.GatewayTestApplication;
import dev.ratelimit.e2e.Upstream;
import dev.ratelimit.web.Draft11Fields;
import dev.ratelimit.web.Draft11Fields.Policy;
import dev.ratelimit.web.Draft11Fields.ServiceLimit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Calendar quotas through a real gateway on the embedded Redis, which judges by its own
 * clock: a monthly limit (the lean script) refuses once spent with {@code Retry-After}
 * and reset pointing at 00:00 UTC on the next 1st, and a tier of a monthly and a weekly
 * limit in Paris (the generic script) refuses by the week; each limit's window is its
 * current period's length. A monthly limit on the hybrid store, whose leases the
 * generic script grants, refuses until the next 1st too, once spent. Redis time cannot be set, so the expected values are worked
 * out with {@code java.time} from the wall clock read before and after each request: the
 * decision was taken between the two readings.
 */
class RedisCalendarGatewayTests {

	private static final ZoneId UTC = ZoneId.of("UTC");

	private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

	private static final Upstream upstream = Upstream.start();

	private static TestRedis redis;

	private static ConfigurableApplicationContext gateway;

	private static WebTestClient client;

	@BeforeAll
	static void startGateway() {
		redis = TestRedis.start();
		redis.flushAll();
		String routes = "spring.cloud.gateway.server.webflux.routes";
		gateway = new SpringApplicationBuilder(GatewayTestApplication.class).properties("server.port=0",
				"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
				"ratelimit.store=redis", "ratelimit.redis.timeout=5s", "ratelimit.redis.on-failure=deny",
				"ratelimit.headers=draft-11", "ratelimit.policies.monthly.key=header:X-Client",
				"ratelimit.policies.monthly.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.monthly.tiers.anonymous[0].limit=3",
				"ratelimit.policies.monthly.tiers.anonymous[0].calendar=month",
				"ratelimit.policies.both.key=header:X-Client",
				"ratelimit.policies.both.tiers.anonymous[0].name=monthly",
				"ratelimit.policies.both.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.both.tiers.anonymous[0].limit=3",
				"ratelimit.policies.both.tiers.anonymous[0].calendar=month",
				"ratelimit.policies.both.tiers.anonymous[1].name=weekly",
				"ratelimit.policies.both.tiers.anonymous[1].algorithm=sliding-window-counter",
				"ratelimit.policies.both.tiers.anonymous[1].limit=2",
				"ratelimit.policies.both.tiers.anonymous[1].calendar=week",
				"ratelimit.policies.both.tiers.anonymous[1].zone=Europe/Paris", routes + "[0].id=monthly",
				routes + "[0].uri=" + upstream.uri(), routes + "[0].predicates[0]=Path=/monthly/**",
				routes + "[0].filters[0]=RateLimit=monthly", routes + "[1].id=both",
				routes + "[1].uri=" + upstream.uri(),
				routes + "[1].predicates[0]=Path=/both/**", routes + "[1].filters[0]=RateLimit=both",
				"ratelimit.policies.hybrid.key=header:X-Client", "ratelimit.policies.hybrid.store=hybrid",
				"ratelimit.policies.hybrid.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.hybrid.tiers.anonymous[0].limit=3",
				"ratelimit.policies.hybrid.tiers.anonymous[0].calendar=month", routes + "[2].id=hybrid",
				routes + "[2].uri=" + upstream.uri(), routes + "[2].predicates[0]=Path=/hybrid/**",
				routes + "[2].filters[0]=RateLimit=hybrid")
			.run();
		client = RedisGatewayTests.client(gateway);
	}

	@AfterAll
	static void stopGateway() {
		gateway.close();
		redis.close();
		upstream.close();
	}

	@Test
	void aMonthlyQuotaRefusesUntilTheFirstOfTheNextMonthInRedisTime() {
		for (int i = 0; i < 3; i++) {
			assertThat(get("/monthly/x", "monthly-client").getStatus()).isEqualTo(HttpStatus.OK);
		}
		Instant before = Instant.now();
		EntityExchangeResult<byte[]> rejected = get("/monthly/x", "monthly-client");
		Instant after = Instant.now();
		assertThat(rejected.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		long retryAfter = Long.parseLong(rejected.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER));
		assertThat(retryAfter).isBetween(secondsUntil(nextMonth(after), after) - 1,
				secondsUntil(nextMonth(before), before) + 1);
		Draft11Fields fields = Draft11Fields.of(rejected.getResponseHeaders());
		assertThat(fields.serviceLimits()).containsExactly(new ServiceLimit("monthly-anonymous-1", 0, retryAfter));
		assertThat(fields.policies()).singleElement()
			.isIn(new Policy("monthly-anonymous-1", 3, monthSeconds(before)),
					new Policy("monthly-anonymous-1", 3, monthSeconds(after)));
		assertThat(upstream.hits("/monthly/x")).isEqualTo(3);
	}

	@Test
	void aTierOfAMonthAndAWeekInParisRefusesByTheWeek() {
		assertThat(get("/both/x", "both-client").getStatus()).isEqualTo(HttpStatus.OK);
		assertThat(get("/both/x", "both-client").getStatus()).isEqualTo(HttpStatus.OK);
		Instant before = Instant.now();
		EntityExchangeResult<byte[]> rejected = get("/both/x", "both-client");
		Instant after = Instant.now();
		assertThat(rejected.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(JsonPath.<List<String>>read(new String(rejected.getResponseBodyContent()), "$['violated-policies']"))
			.containsExactly("weekly");
		// The two units of this week fade through the next: one fits again halfway through it.
		long retryAfter = Long.parseLong(rejected.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER));
		assertThat(retryAfter).isBetween(secondsUntil(nextWeek(after), after) + weekSeconds(nextWeek(after)) / 2 - 1,
				secondsUntil(nextWeek(before), before) + weekSeconds(nextWeek(before)) / 2 + 1);
		Draft11Fields fields = Draft11Fields.of(rejected.getResponseHeaders());
		assertThat(fields.serviceLimits()).first().isEqualTo(new ServiceLimit("weekly", 0, retryAfter));
		assertThat(fields.serviceLimits().get(1).name()).isEqualTo("monthly");
		assertThat(fields.serviceLimits().get(1).remaining()).isEqualTo(1);
		assertThat(fields.policies()).hasSize(2);
		assertThat(fields.policies().get(0).windowSeconds()).isIn(monthSeconds(before), monthSeconds(after));
		assertThat(fields.policies().get(1).windowSeconds()).isIn(weekSeconds(thisWeek(before)),
				weekSeconds(thisWeek(after)));
	}

	@Test
	void aMonthlyQuotaOnTheHybridStoreRefusesUntilTheFirstOfTheNextMonth() {
		// On a busy machine a renewal can leave a unit the node did not spend on its way
		// back to Redis, which then reports the bucket empty: the node refuses until its
		// next sync returns the unit (docs/redis.md, hybrid, items 3 and 4), so fewer than
		// the quota may pass for an interval, never more. The quota is spent once the
		// upstream has had 3.
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(150)).until(() -> {
			get("/hybrid/x", "hybrid-client");
			return upstream.hits("/hybrid/x") >= 3;
		});
		assertThat(upstream.hits("/hybrid/x")).isEqualTo(3);
		Instant before = Instant.now();
		EntityExchangeResult<byte[]> rejected = get("/hybrid/x", "hybrid-client");
		Instant after = Instant.now();
		assertThat(rejected.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		long retryAfter = Long.parseLong(rejected.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER));
		assertThat(retryAfter).isBetween(secondsUntil(nextMonth(after), after) - 1,
				secondsUntil(nextMonth(before), before) + 1);
		assertThat(upstream.hits("/hybrid/x")).isEqualTo(3);
	}

	private static EntityExchangeResult<byte[]> get(String path, String clientKey) {
		return client.get().uri(path).header("X-Client", clientKey).exchange().expectBody().returnResult();
	}

	private static ZonedDateTime nextMonth(Instant now) {
		return LocalDate.ofInstant(now, UTC).withDayOfMonth(1).plusMonths(1).atStartOfDay(UTC);
	}

	private static long monthSeconds(Instant now) {
		ZonedDateTime next = nextMonth(now);
		return Duration.between(next.minusMonths(1), next).toSeconds();
	}

	private static ZonedDateTime thisWeek(Instant now) {
		return LocalDate.ofInstant(now, PARIS).with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY))
			.atStartOfDay(PARIS);
	}

	private static ZonedDateTime nextWeek(Instant now) {
		return thisWeek(now).toLocalDate().plusWeeks(1).atStartOfDay(PARIS);
	}

	private static long weekSeconds(ZonedDateTime start) {
		return Duration.between(start, start.toLocalDate().plusWeeks(1).atStartOfDay(PARIS)).toSeconds();
	}

	private static long secondsUntil(ZonedDateTime end, Instant now) {
		return Duration.between(now, end.toInstant()).toSeconds();
	}

}
