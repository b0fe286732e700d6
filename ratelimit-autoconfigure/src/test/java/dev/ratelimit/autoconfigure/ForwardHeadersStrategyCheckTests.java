package dev.ratelimit.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class ForwardHeadersStrategyCheckTests {

	@ParameterizedTest
	@ValueSource(strings = { "native", "framework", "NATIVE" })
	void warnsThatAStrategyRewritingTheRemoteAddressLetsClientsChooseIt(String strategy, CapturedOutput output) {
		check(strategy);
		assertThat(output).contains("server.forward-headers-strategy=" + strategy)
			.contains("which any client can write")
			.contains("ratelimit.trusted-proxies");
	}

	@ParameterizedTest
	@ValueSource(strings = { "none", "NONE" })
	void staysQuietWhenTheRemoteAddressIsTheConnections(String strategy, CapturedOutput output) {
		check(strategy);
		assertThat(output).doesNotContain("forward-headers-strategy");
	}

	@Test
	void staysQuietByDefault(CapturedOutput output) {
		new ForwardHeadersStrategyCheck(new MockEnvironment()).afterSingletonsInstantiated();
		assertThat(output).doesNotContain("forward-headers-strategy");
	}

	private static void check(String strategy) {
		new ForwardHeadersStrategyCheck(
				new MockEnvironment().withProperty(ForwardHeadersStrategyCheck.PROPERTY, strategy))
			.afterSingletonsInstantiated();
	}

}
