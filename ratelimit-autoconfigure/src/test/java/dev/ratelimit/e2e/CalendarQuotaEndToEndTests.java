package dev.ratelimit.e2e;

import java.time.Duration;
import java.time.Instant;

import com.jayway.jsonpath.JsonPath;
import dev.ratelimit.support.ManualClock;
import dev.ratelimit.web.Draft11Fields;
import dev.ratelimit.web.Draft11Fields.Policy;
import dev.ratelimit.web.Draft11Fields.ServiceLimit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calendar quotas through a real gateway on the Caffeine store, with the clock moved by
 * hand to a leap February: a monthly limit refuses once spent, until 00:00 on March 1st,
 * which its reset and {@code Retry-After} point at to the second; its window is the
 * current month's length, 29 days in February and 31 in March, and a daily limit in
 * Paris reports the 23 hours of the day the clocks go forward.
 */
class CalendarQuotaEndToEndTests {

	private static final long DAY_SECONDS = Duration.ofDays(1).toSeconds();

	private static final Upstream upstream = Upstream.start();

	@AfterAll
	static void stopUpstream() {
		upstream.close();
	}

	@Test
	void aMonthlyQuotaRefusesUntilTheFirstOfTheNextMonth() {
		try (GatewayRunner gateway = gateway("draft-11")) {
			ManualClock clock = gateway.bean(ManualClock.class);
			moveTo(clock, "2024-02-10T12:00:00Z");
			long untilMarch = Duration
				.between(Instant.parse("2024-02-10T12:00:00Z"), Instant.parse("2024-03-01T00:00:00Z"))
				.toSeconds();
			Draft11Fields first = Draft11Fields.of(ok(gateway, "/monthly/x").getResponseHeaders());
			assertThat(first.policies()).containsExactly(new Policy("monthly-anonymous-1", 3, 29 * DAY_SECONDS));
			assertThat(first.serviceLimits()).containsExactly(new ServiceLimit("monthly-anonymous-1", 2, untilMarch));
			ok(gateway, "/monthly/x");
			ok(gateway, "/monthly/x");
			clock.advance(Duration.ofDays(19));
			EntityExchangeResult<byte[]> rejected = get(gateway, "/monthly/x");
			assertThat(rejected.getStatus()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
			long lastHalfDay = DAY_SECONDS / 2;
			assertThat(rejected.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER))
				.isEqualTo(Long.toString(lastHalfDay));
			assertThat(Draft11Fields.of(rejected.getResponseHeaders()).serviceLimits())
				.containsExactly(new ServiceLimit("monthly-anonymous-1", 0, lastHalfDay));
			assertThat(JsonPath.<String>read(new String(rejected.getResponseBodyContent()), "$.detail"))
				.isEqualTo("You have exceeded the rate limit of 3 requests per calendar month.");
			assertThat(upstream.hits("/monthly/x")).isEqualTo(3);

			clock.advance(Duration.ofSeconds(lastHalfDay));
			Draft11Fields march = Draft11Fields.of(ok(gateway, "/monthly/x").getResponseHeaders());
			assertThat(march.policies()).containsExactly(new Policy("monthly-anonymous-1", 3, 31 * DAY_SECONDS));
			assertThat(march.serviceLimits())
				.containsExactly(new ServiceLimit("monthly-anonymous-1", 2, 31 * DAY_SECONDS));
		}
	}

	@Test
	void draft06ReportsTheMonthsLengthAndTheTimeToItsEnd() {
		try (GatewayRunner gateway = gateway("draft-06")) {
			moveTo(gateway.bean(ManualClock.class), "2023-02-28T23:00:00Z");
			HttpHeaders headers = ok(gateway, "/monthly/x").getResponseHeaders();
			assertThat(headers.getFirst("RateLimit-Policy")).isEqualTo("3;w=" + 28 * DAY_SECONDS);
			assertThat(headers.getFirst("RateLimit-Reset")).isEqualTo("3600");
			assertThat(headers.getFirst("RateLimit-Remaining")).isEqualTo("2");
		}
	}

	@Test
	void aDailyQuotaInParisLasts23HoursTheDayTheClocksGoForward() {
		try (GatewayRunner gateway = gateway("draft-11")) {
			// 09:00 in Paris on Sunday 2024-03-31, which began at 23:00 UTC the day before.
			moveTo(gateway.bean(ManualClock.class), "2024-03-31T07:00:00Z");
			Draft11Fields fields = Draft11Fields.of(ok(gateway, "/paris/x").getResponseHeaders());
			assertThat(fields.policies()).containsExactly(new Policy("paris-anonymous-1", 5, 23 * 3600));
			// The unit taken comes back once it has faded through the rest of the day and
			// the whole of Monday, a day of 24 hours.
			assertThat(fields.serviceLimits())
				.containsExactly(new ServiceLimit("paris-anonymous-1", 4, 15 * 3600 + DAY_SECONDS));
		}
	}

	private static void moveTo(ManualClock clock, String instant) {
		Instant target = Instant.parse(instant);
		long targetNanos = target.getEpochSecond() * 1_000_000_000L + target.getNano();
		clock.advance(Duration.ofNanos(targetNanos - clock.nanoTime()));
	}

	private static EntityExchangeResult<byte[]> ok(GatewayRunner gateway, String path) {
		EntityExchangeResult<byte[]> response = get(gateway, path);
		assertThat(response.getStatus()).as(new String(response.getResponseBodyContent())).isEqualTo(HttpStatus.OK);
		return response;
	}

	private static EntityExchangeResult<byte[]> get(GatewayRunner gateway, String path) {
		return gateway.client().get().uri(path).exchange().expectBody().returnResult();
	}

	/**
	 * A gateway with {@code /monthly/**}, 3 requests per calendar month in UTC (a fixed
	 * window), and {@code /paris/**}, 5 per calendar day in Paris (a sliding window
	 * counter), in the given header style.
	 */
	private static GatewayRunner gateway(String style) {
		String routes = "spring.cloud.gateway.server.webflux.routes";
		return GatewayRunner.start("ratelimit.headers=" + style, "ratelimit.policies.monthly.key=ip",
				"ratelimit.policies.monthly.tiers.anonymous[0].algorithm=fixed-window",
				"ratelimit.policies.monthly.tiers.anonymous[0].limit=3",
				"ratelimit.policies.monthly.tiers.anonymous[0].calendar=month", "ratelimit.policies.paris.key=ip",
				"ratelimit.policies.paris.tiers.anonymous[0].algorithm=sliding-window-counter",
				"ratelimit.policies.paris.tiers.anonymous[0].limit=5",
				"ratelimit.policies.paris.tiers.anonymous[0].calendar=day",
				"ratelimit.policies.paris.tiers.anonymous[0].zone=Europe/Paris", routes + "[0].id=monthly",
				routes + "[0].uri=" + upstream.uri(), routes + "[0].predicates[0]=Path=/monthly/**",
				routes + "[0].filters[0]=RateLimit=monthly", routes + "[1].id=paris",
				routes + "[1].uri=" + upstream.uri(),
				routes + "[1].predicates[0]=Path=/paris/**", routes + "[1].filters[0]=RateLimit=paris");
	}

}
