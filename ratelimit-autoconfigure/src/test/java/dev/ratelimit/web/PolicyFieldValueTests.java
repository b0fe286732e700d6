package dev.ratelimit.web;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.algorithm.CalendarPeriods;
import dev.ratelimit.algorithm.CalendarPeriods.Unit;
import dev.ratelimit.algorithm.Decision;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Verdict;
import dev.ratelimit.policy.Tier;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code RateLimit-Policy} of a tier with a limit counted in calendar periods: its
 * window is the length of the period the store's clock is in, written again only when the
 * clock enters another period.
 */
class PolicyFieldValueTests {

	private static final Tier TIER = new Tier("free",
			List.of(new FixedWindow(10, Duration.ofMinutes(1)),
					FixedWindow.inCalendar(1000, CalendarPeriods.of(Unit.MONTH, ZoneId.of("UTC")))),
			List.of("per-minute", "monthly"));

	private final AtomicLong now = new AtomicLong();

	@Test
	void theWindowOfACalendarLimitIsTheCurrentPeriodsLength() {
		PolicyFieldValue value = PolicyFieldValue.of(limits(),
				(described) -> described.get(0).draft11Policy() + ", " + described.get(1).draft11Policy(),
				this.now::get);
		this.now.set(at("2024-02-10T00:00:00Z"));
		String february = value.value();
		assertThat(february).isEqualTo("\"per-minute\";q=10;w=60, \"monthly\";q=1000;w=2505600");
		this.now.set(at("2024-02-29T23:59:59Z"));
		assertThat(value.value()).isSameAs(february);
		this.now.set(at("2024-03-01T00:00:00Z"));
		assertThat(value.value()).isEqualTo("\"per-minute\";q=10;w=60, \"monthly\";q=1000;w=2678400");
		// A clock read late, back in February, is told February's again.
		this.now.set(at("2024-02-29T23:59:59Z"));
		assertThat(value.value()).isEqualTo(february);
	}

	@Test
	void aTierWithoutCalendarLimitsIsWrittenOnceWithoutReadingTheClock() {
		Tier tier = new Tier("free", List.of(new FixedWindow(10, Duration.ofMinutes(1))));
		PolicyFieldValue value = PolicyFieldValue.of(List.of(LimitDescription.of("p", tier, 0)),
				(described) -> described.get(0).draft11Policy(), () -> {
					throw new AssertionError("the clock was read");
				});
		assertThat(value.value()).isEqualTo("\"p-free-1\";q=10;w=60");
	}

	@Test
	void draft06HeadersTellTheCurrentMonthsLength() {
		HttpHeaders headers = new HttpHeaders();
		this.now.set(at("2023-02-01T00:00:00Z"));
		RateLimitHeaders.of(HeaderStyle.DRAFT_06, limits(), this.now::get)
			.write(headers, Verdict.of(new Decision[] { new Decision(true, 9, 10, 0, 0),
					new Decision(true, 999, 1000, 0, 0) }));
		assertThat(headers.getFirst("RateLimit-Policy")).isEqualTo("10;w=60, 1000;w=2419200");
	}

	private static List<LimitDescription> limits() {
		return List.of(LimitDescription.of("p", TIER, 0), LimitDescription.of("p", TIER, 1));
	}

	private static long at(String instant) {
		Instant parsed = Instant.parse(instant);
		return parsed.getEpochSecond() * 1_000_000_000L + parsed.getNano();
	}

}
