package dev.ratelimit.actuate;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitDashboardTests {

	@Test
	void basePathCannotEndTheScriptItIsWrittenInto() {
		assertThat(RateLimitDashboard.javaScriptString("/manage")).isEqualTo("'/manage'");
		assertThat(RateLimitDashboard.javaScriptString("/a'</script><script>x")).isEqualTo(
				"'/a\\u0027\\u003c/script\\u003e\\u003cscript\\u003ex'");
	}

}
