package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.Map;

import dev.ratelimit.actuate.ShowKeys;
import dev.ratelimit.algorithm.Algorithm;
import dev.ratelimit.policy.ForwardedHeader;
import dev.ratelimit.policy.OnMissingKey;
import dev.ratelimit.policy.StoreType;
import dev.ratelimit.store.redis.FailureMode;
import dev.ratelimit.support.ConfigName;
import dev.ratelimit.web.HeaderStyle;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ConfigName}: the name every configured enum prints is the one Spring
 * Boot binds back to it.
 */
class ConfigNameTests {

	@Test
	void everyConfiguredEnumBindsFromTheNameItPrints() {
		List<Class<? extends Enum<?>>> enums = List.of(Algorithm.class, StoreType.class, HeaderStyle.class,
				ShowKeys.class, OnMissingKey.class, ForwardedHeader.class, FailureMode.class);
		for (Class<? extends Enum<?>> type : enums) {
			for (Enum<?> constant : type.getEnumConstants()) {
				String name = ((ConfigName) constant).configName();
				Binder binder = new Binder(new MapConfigurationPropertySource(Map.of("value", name)));
				assertThat(binder.bind("value", type).get()).as(name).isSameAs(constant);
			}
		}
	}

	@Test
	void namesAreLowerCaseWordsJoinedByHyphens() {
		assertThat(Algorithm.SLIDING_WINDOW_COUNTER.configName()).isEqualTo("sliding-window-counter");
		assertThat(HeaderStyle.DRAFT_06.configName()).isEqualTo("draft-06");
		assertThat(StoreType.CAFFEINE.storeName()).isEqualTo("caffeine");
	}

	@Test
	void choicesReadAsAList() {
		assertThat(ConfigName.oneOf(StoreType.values())).isEqualTo("caffeine, redis or hybrid");
		assertThat(ConfigName.oneOf(OnMissingKey.values())).isEqualTo("client-address or reject");
		assertThat(ConfigName.oneOf(FailureMode.ALLOW)).isEqualTo("allow");
	}

}
