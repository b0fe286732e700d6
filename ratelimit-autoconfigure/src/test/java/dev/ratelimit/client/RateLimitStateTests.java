package dev.ratelimit.client;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ratelimit.support.ManualClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RateLimitStateTests {

	private static final String HOST = "api.example:443";

	private final ManualClock clock = new ManualClock();

	private final RateLimitState state = new RateLimitState(this.clock);

	@Test
	void anUnknownHostHasNoHold() {
		assertThat(this.state.holdFor(HOST)).isZero();
	}

	@Test
	void draft06NothingRemainingHoldsTheHostUntilTheReset() {
		Duration asked = this.state.observe(HOST, 200, fields("RateLimit-Remaining", "0", "RateLimit-Reset", "5"));
		assertThat(asked).isEqualTo(Duration.ofSeconds(5));
		assertThat(this.state.holdFor(HOST)).isEqualTo(Duration.ofSeconds(5));
		this.clock.advance(Duration.ofSeconds(2));
		assertThat(this.state.holdFor(HOST)).isEqualTo(Duration.ofSeconds(3));
		this.clock.advance(Duration.ofSeconds(3));
		assertThat(this.state.holdFor(HOST)).isZero();
		assertThat(this.state.holdFor("other.example:443")).as("another host").isZero();
	}

	@Test
	void draft06RemainingAboveZeroReleasesTheHost() {
		this.state.observe(HOST, 200, fields("RateLimit-Remaining", "0", "RateLimit-Reset", "5"));
		assertThat(this.state.observe(HOST, 200, fields("RateLimit-Remaining", "3", "RateLimit-Reset", "5")))
			.isNull();
		assertThat(this.state.holdFor(HOST)).isZero();
	}

	@Test
	void draft11HoldsEachNamedPolicyUntilItsOwnReset() {
		this.state.observe(HOST, 200, fields("RateLimit", "\"per-second\";r=0;t=1, \"daily\";r=0;t=600"));
		assertThat(this.state.holdFor(HOST)).as("the longest").isEqualTo(Duration.ofSeconds(600));
		// a response from a route that only the per-second policy judges releases it, not the day
		this.state.observe(HOST, 200, fields("RateLimit", "\"per-second\";r=4;t=1"));
		assertThat(this.state.holdFor(HOST)).isEqualTo(Duration.ofSeconds(600));
		this.state.observe(HOST, 200, fields("RateLimit", "\"daily\";r=9;t=500"));
		assertThat(this.state.holdFor(HOST)).isZero();
	}

	@Test
	void draft11HoldsExpireOnTheClock() {
		Duration asked = this.state.observe(HOST, 200, fields("RateLimit", "\"a\";r=0;t=2, \"b\";r=0;t=1"));
		assertThat(asked).isEqualTo(Duration.ofSeconds(2));
		this.clock.advance(Duration.ofMillis(1500));
		assertThat(this.state.holdFor(HOST)).isEqualTo(Duration.ofMillis(500));
		this.clock.advance(Duration.ofMillis(500));
		assertThat(this.state.holdFor(HOST)).isZero();
	}

	@Test
	void aLimitWithoutResetHoldsNothing() {
		assertThat(this.state.observe(HOST, 200, fields("RateLimit", "\"exports\";r=0"))).isNull();
		assertThat(this.state.holdFor(HOST)).isZero();
	}

	@Test
	void a429HoldsTheHostForItsRetryAfterWhichTakesPrecedenceOverTheWindows() {
		Duration asked = this.state.observe(HOST, 429,
				fields("Retry-After", "30", "RateLimit", "\"a\";r=0;t=2", "RateLimit-Remaining", "0",
						"RateLimit-Reset", "2"));
		assertThat(asked).isEqualTo(Duration.ofSeconds(30));
		this.clock.advance(Duration.ofSeconds(10));
		assertThat(this.state.holdFor(HOST)).isEqualTo(Duration.ofSeconds(20));
	}

	@Test
	void a429WithoutRetryAfterIsHeldByItsWindows() {
		assertThat(this.state.observe(HOST, 429, fields("RateLimit", "\"a\";r=0;t=3"))).isEqualTo(Duration.ofSeconds(3));
		assertThat(this.state.holdFor(HOST)).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void a429SayingNothingAsksForNoWait() {
		assertThat(this.state.observe(HOST, 429, RateLimitFields.NONE)).isNull();
		assertThat(this.state.holdFor(HOST)).isZero();
	}

	@Test
	void retryAfterOnAnotherStatusHoldsNothing() {
		assertThat(this.state.observe(HOST, 503, fields("Retry-After", "30"))).isNull();
		assertThat(this.state.holdFor(HOST)).isZero();
	}

	@Test
	void retryAfterAsADateCountsFromTheResponsesDate() {
		this.state.observe(HOST, 429,
				fields("Retry-After", "Mon, 05 Aug 2019 09:27:05 GMT", "Date", "Mon, 05 Aug 2019 09:27:00 GMT"));
		assertThat(this.state.holdFor(HOST)).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void retryAfterAsADateWithoutDateCountsFromTheClock() {
		// the manual clock reads 1000 s after the epoch
		this.state.observe(HOST, 429, fields("Retry-After", "Thu, 01 Jan 1970 00:16:50 GMT"));
		assertThat(this.state.holdFor(HOST)).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void aHugeResetNeverOverflows() {
		this.state.observe(HOST, 429, fields("Retry-After", "99999999999999999999"));
		assertThat(this.state.holdFor(HOST)).isPositive();
		this.state.observe(HOST, 200, fields("RateLimit", "\"a\";r=0;t=999999999999999"));
		assertThat(this.state.holdFor(HOST)).isPositive();
	}

	@Test
	void hostsAreKeptByHostAndPort() {
		assertThat(RateLimitState.hostOf(URI.create("https://API.example/a"))).isEqualTo("api.example:443");
		assertThat(RateLimitState.hostOf(URI.create("http://api.example/a?b"))).isEqualTo("api.example:80");
		assertThat(RateLimitState.hostOf(URI.create("http://127.0.0.1:8080/a"))).isEqualTo("127.0.0.1:8080");
	}

	@Test
	void aStateNeedsAClock() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimitState(null)).withMessageContaining("clock");
	}

	private static RateLimitFields fields(String... namesAndValues) {
		Map<String, List<String>> lines = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
		for (int i = 0; i < namesAndValues.length; i += 2) {
			lines.put(namesAndValues[i], List.of(namesAndValues[i + 1]));
		}
		return RateLimitFields.parse(lines::get);
	}

}
