package dev.ratelimit.client;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitFieldsTests {

	@Test
	void draft11ServiceLimitsAndPoliciesAsOurServerWritesThem() {
		RateLimitFields fields = parse(Map.of("RateLimit", List.of("\"api-anonymous-1\";r=9;t=2, \"daily\";r=21;t=86398"),
				"RateLimit-Policy", List.of("\"api-anonymous-1\";q=10;w=2, \"daily\";q=30;w=86400")));
		assertThat(fields.serviceLimits()).containsExactly(
				new ServiceLimit("api-anonymous-1", 9, Duration.ofSeconds(2)),
				new ServiceLimit("daily", 21, Duration.ofSeconds(86398)));
		assertThat(fields.quotaPolicies()).containsExactly(
				new QuotaPolicy("api-anonymous-1", 10, Duration.ofSeconds(2), null),
				new QuotaPolicy("daily", 30, Duration.ofDays(1), null));
		assertThat(fields.remaining()).isEmpty();
		assertThat(fields.retryAfter()).isNull();
	}

	@Test
	void draft11LimitOfRequestsInFlightHasAUnitAndNoReset() {
		RateLimitFields fields = parse(Map.of("RateLimit", List.of("\"exports-anonymous-1\";r=0"), "RateLimit-Policy",
				List.of("\"exports-anonymous-1\";q=2;qu=\"concurrent-requests\"")));
		assertThat(fields.serviceLimits()).containsExactly(new ServiceLimit("exports-anonymous-1", 0, null));
		assertThat(fields.quotaPolicies())
			.containsExactly(new QuotaPolicy("exports-anonymous-1", 2, null, "concurrent-requests"));
	}

	@Test
	void draft11GeneralForms() {
		// the draft's own examples: a partition key, vendor parameters, no space after
		// commas, a list split over two field lines (RFC 9651 section 4.2), an escaped name
		RateLimitFields fields = parse(Map.of("RateLimit",
				List.of("\"default\";r=50;t=30;pk=:dHJpYWwxMjEzMjM=:;acme-burst=?1", "\"day\\\"s\";r=0;t=5"),
				"RateLimit-Policy",
				List.of("\"peruser\";q=65535;qu=\"content-bytes\";w=10;pk=:sdfjLJUOUH==:,\"burst\";q=100;w=60;x=1.5")));
		assertThat(fields.serviceLimits()).containsExactly(new ServiceLimit("default", 50, Duration.ofSeconds(30)),
				new ServiceLimit("day\"s", 0, Duration.ofSeconds(5)));
		assertThat(fields.quotaPolicies()).containsExactly(
				new QuotaPolicy("peruser", 65535, Duration.ofSeconds(10), "content-bytes"),
				new QuotaPolicy("burst", 100, Duration.ofMinutes(1), null));
	}

	@Test
	void draft06FieldsAsOurServerWritesThem() {
		RateLimitFields fields = parse(Map.of("RateLimit-Limit", List.of("10"), "RateLimit-Remaining", List.of("0"),
				"RateLimit-Reset", List.of("2"), "RateLimit-Policy", List.of("10;w=5, 10000;w=86400")));
		assertThat(fields.limit()).hasValue(10);
		assertThat(fields.remaining()).hasValue(0);
		assertThat(fields.reset()).isEqualTo(Duration.ofSeconds(2));
		assertThat(fields.quotaPolicies()).containsExactly(new QuotaPolicy(null, 10, Duration.ofSeconds(5), null),
				new QuotaPolicy(null, 10000, Duration.ofDays(1), null));
		assertThat(fields.serviceLimits()).isEmpty();
	}

	@Test
	void draft06GeneralForms() {
		RateLimitFields fields = parse(Map.of("RateLimit-Limit", List.of(" 100 "), "RateLimit-Remaining",
				List.of("50"), "RateLimit-Reset", List.of("50"), "RateLimit-Policy",
				List.of("100;w=60;comment=\"fixed window\"", "12;w=1;burst=1000;policy=\"leaky bucket\"")));
		assertThat(fields.limit()).hasValue(100);
		assertThat(fields.quotaPolicies()).containsExactly(new QuotaPolicy(null, 100, Duration.ofMinutes(1), null),
				new QuotaPolicy(null, 12, Duration.ofSeconds(1), null));
	}

	@Test
	void fieldNamesAreReadWithoutRegardToCase() {
		HttpHeaders headers = new HttpHeaders();
		headers.add("ratelimit", "\"a\";r=1;t=1");
		headers.add("RATELIMIT-REMAINING", "3");
		headers.add("retry-after", "7");
		RateLimitFields fields = RateLimitFields.parse(headers::get);
		assertThat(fields.serviceLimits()).containsExactly(new ServiceLimit("a", 1, Duration.ofSeconds(1)));
		assertThat(fields.remaining()).hasValue(3);
		assertThat(fields.retryAfter().delay()).isEqualTo(Duration.ofSeconds(7));
	}

	@Test
	void noFieldsReadAsNone() {
		RateLimitFields fields = parse(Map.of());
		assertThat(fields.serviceLimits()).isEmpty();
		assertThat(fields.quotaPolicies()).isEmpty();
		assertThat(fields.limit()).isEmpty();
		assertThat(fields.remaining()).isEmpty();
		assertThat(fields.reset()).isNull();
		assertThat(fields.retryAfter()).isNull();
		assertThat(parse(Map.of("RateLimit", List.of()))).usingRecursiveComparison().isEqualTo(RateLimitFields.NONE);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "\"a\"", "\"a\";t=5", "\"a\";r=-1", "\"a\";r=1;t=-1", "\"a\";r=1.5", "\"a\";r=\"1\"",
			"a;r=1", "1;r=1", "(\"a\");r=1", "\"a\";r=1,", "\"a\";r=1 \"b\";r=2", "\"a;r=1", "\"a\";R=1",
			"\"a\";r=1234567890123456", "\"a\";r=1, \"b\"", "\"é\";r=1", "\"a\";r=1;t=2;pk=:abc" })
	void aMalformedRateLimitFieldIsIgnoredWhole(String value) {
		RateLimitFields fields = parse(Map.of("RateLimit", List.of(value), "RateLimit-Remaining", List.of("4")));
		assertThat(fields.serviceLimits()).isEmpty();
		assertThat(fields.remaining()).as("the other fields are still read").hasValue(4);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "\"a\";w=60", "\"a\";q=-1", "\"a\";q=10;w=0", "\"a\";q=10;qu=requests",
			"\"a\";q=10, 10;w=60", "10;w=60, \"a\";q=10", "10", "10;w=\"60\"", "-1;w=60", "10;w=60;w", "?1;w=60",
			"10;w=60 ;", "\"a\";q=10;w=1.0" })
	void aMalformedPolicyFieldIsIgnoredWhole(String value) {
		RateLimitFields fields = parse(Map.of("RateLimit-Policy", List.of(value), "RateLimit", List.of("\"a\";r=1")));
		assertThat(fields.quotaPolicies()).isEmpty();
		assertThat(fields.serviceLimits()).hasSize(1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "-1", "1.5", "ten", "\"10\"", "10;w=60", "10, 20", "1234567890123456" })
	void aMalformedDraft06CountIsIgnored(String value) {
		RateLimitFields fields = parse(Map.of("RateLimit-Limit", List.of(value), "RateLimit-Remaining", List.of(value),
				"RateLimit-Reset", List.of("3")));
		assertThat(fields.limit()).isEmpty();
		assertThat(fields.remaining()).isEmpty();
		assertThat(fields.reset()).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void aDraft06FieldSentTwiceIsIgnored() {
		RateLimitFields fields = parse(Map.of("RateLimit-Remaining", List.of("1", "2"), "RateLimit-Reset",
				List.of("4", "5")));
		assertThat(fields.remaining()).isEmpty();
		assertThat(fields.reset()).isNull();
	}

	@Test
	void retryAfterInDelaySeconds() {
		RetryAfter retryAfter = parse(Map.of("Retry-After", List.of("120"))).retryAfter();
		assertThat(retryAfter.delay()).isEqualTo(Duration.ofSeconds(120));
		assertThat(retryAfter.delayFrom(Instant.EPOCH)).isEqualTo(Duration.ofSeconds(120));
		assertThat(parse(Map.of("Retry-After", List.of("0"))).retryAfter().delay()).isZero();
	}

	@Test
	void retryAfterTooLargeForAnIntegerIsTheLargestSecondsRead() {
		assertThat(parse(Map.of("Retry-After", List.of("99999999999999999999999"))).retryAfter().delay())
			.isEqualTo(Duration.ofSeconds(RetryAfter.MAX_SECONDS));
	}

	@Test
	void retryAfterAsAnImfFixdateCountsFromTheResponsesDate() {
		RetryAfter retryAfter = parse(Map.of("Retry-After", List.of("Mon, 05 Aug 2019 09:27:05 GMT"), "Date",
				List.of("Mon, 05 Aug 2019 09:27:00 GMT")))
			.retryAfter();
		assertThat(retryAfter.date()).isEqualTo(Instant.parse("2019-08-05T09:27:05Z"));
		// the client's clock is an hour off: it still waits the five seconds the server meant
		assertThat(retryAfter.delayFrom(Instant.parse("2019-08-05T10:27:00Z"))).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void retryAfterAsADateWithoutTheResponsesDateCountsFromNow() {
		RetryAfter retryAfter = parse(Map.of("Retry-After", List.of("Sun, 06 Nov 1994 08:49:37 GMT"))).retryAfter();
		assertThat(retryAfter.delayFrom(Instant.parse("1994-11-06T08:49:30Z"))).isEqualTo(Duration.ofSeconds(7));
		assertThat(retryAfter.delayFrom(Instant.parse("1994-11-06T09:00:00Z"))).as("a date passed").isZero();
	}

	@Test
	void retryAfterInTheObsoleteDateFormats() {
		Instant expected = Instant.parse("1994-11-06T08:49:37Z");
		assertThat(parse(Map.of("Retry-After", List.of("Sunday, 06-Nov-94 08:49:37 GMT"))).retryAfter().date())
			.isEqualTo(expected);
		assertThat(parse(Map.of("Retry-After", List.of("Sun Nov  6 08:49:37 1994"))).retryAfter().date())
			.isEqualTo(expected);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "-5", "1.5", "+5", "5s", "5 5", "soon", "Mon, 32 Aug 2019 09:27:05 GMT",
			"Tue, 05 Aug 2019 09:27:05 GMT", "2019-08-05T09:27:05Z" })
	void aMalformedRetryAfterIsIgnored(String value) {
		RateLimitFields fields = parse(Map.of("Retry-After", List.of(value), "RateLimit-Reset", List.of("3")));
		assertThat(fields.retryAfter()).isNull();
		assertThat(fields.reset()).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void aRetryAfterSentTwiceIsIgnored() {
		assertThat(parse(Map.of("Retry-After", List.of("1", "2"))).retryAfter()).isNull();
	}

	@Test
	void anInvalidDateLeavesTheRetryAfterDateCountedFromNow() {
		RetryAfter retryAfter = parse(Map.of("Retry-After", List.of("Sun, 06 Nov 1994 08:49:37 GMT"), "Date",
				List.of("yesterday")))
			.retryAfter();
		assertThat(retryAfter.responseDate()).isNull();
		assertThat(retryAfter.delayFrom(Instant.parse("1994-11-06T08:49:36Z"))).isEqualTo(Duration.ofSeconds(1));
	}

	private static RateLimitFields parse(Map<String, List<String>> fields) {
		Map<String, List<String>> lines = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
		lines.putAll(fields);
		return RateLimitFields.parse(lines::get);
	}

}
