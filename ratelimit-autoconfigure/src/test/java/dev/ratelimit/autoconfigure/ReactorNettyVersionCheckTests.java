package dev.ratelimit.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class ReactorNettyVersionCheckTests {

	@Test
	void versionsBeforeTheFixLoseKeepAliveRequests() {
		assertThat(ReactorNettyVersionCheck.losesKeepAliveRequests("1.3.0.RELEASE")).isTrue();
		assertThat(ReactorNettyVersionCheck.losesKeepAliveRequests("1.3.6.RELEASE")).isTrue();
		assertThat(ReactorNettyVersionCheck.losesKeepAliveRequests("1.3.7.RELEASE")).isTrue();
		assertThat(ReactorNettyVersionCheck.losesKeepAliveRequests("1.3.8.RELEASE")).isFalse();
		assertThat(ReactorNettyVersionCheck.losesKeepAliveRequests("1.3.10.RELEASE")).isFalse();
		assertThat(ReactorNettyVersionCheck.losesKeepAliveRequests("1.4.0.RELEASE")).isFalse();
		assertThat(ReactorNettyVersionCheck.losesKeepAliveRequests("garbage")).isFalse();
		assertThat(ReactorNettyVersionCheck.losesKeepAliveRequests(null)).isFalse();
	}

	@Test
	void readsTheVersionOfTheReactorNettyOnTheClassPath() {
		// On Boot 4.0.7 the parent pom pins Reactor Netty 1.3.8; Boot 4.1.2 manages it.
		assertThat(ReactorNettyVersionCheck.bundleVersion()).isEqualTo("1.3.8.RELEASE");
	}

	@Test
	void warnsWithTheFixOnAnAffectedVersion(CapturedOutput output) {
		new ReactorNettyVersionCheck("1.3.6.RELEASE").afterSingletonsInstantiated();
		assertThat(output).contains("Reactor Netty 1.3.6.RELEASE can leave a client's next request")
			.contains("reactor-bom.version=2025.0.8")
			.contains("netty.version=4.2.18.Final")
			.contains("Spring Boot 4.0.9 and 4.1.2 manage Reactor Netty 1.3.8 themselves and need neither property");
	}

	@Test
	void staysQuietOnAFixedVersion(CapturedOutput output) {
		new ReactorNettyVersionCheck("1.3.8.RELEASE").afterSingletonsInstantiated();
		assertThat(output).doesNotContain("Reactor Netty");
	}

}
