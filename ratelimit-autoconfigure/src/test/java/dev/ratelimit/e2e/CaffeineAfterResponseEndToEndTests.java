package dev.ratelimit.e2e;

import java.util.List;

/**
 * {@link AfterResponseGatewayScenarios} on the in-memory store.
 */
class CaffeineAfterResponseEndToEndTests extends AfterResponseGatewayScenarios {

	@Override
	protected List<String> storeProperties() {
		return List.of("ratelimit.store=caffeine");
	}

}
