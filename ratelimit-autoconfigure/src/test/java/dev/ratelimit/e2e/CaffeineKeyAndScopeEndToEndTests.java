package dev.ratelimit.e2e;

import java.util.List;

/**
 * {@link KeyAndScopeGatewayScenarios} on the in-memory store.
 */
class CaffeineKeyAndScopeEndToEndTests extends KeyAndScopeGatewayScenarios {

	@Override
	protected List<String> storeProperties() {
		return List.of("ratelimit.store=caffeine");
	}

}
