package dev.ratelimit.e2e;

import java.util.List;

/**
 * {@link AfterResponseSoak} on the in-memory store.
 */
class CaffeineAfterResponseSoakTests extends AfterResponseSoak {

	@Override
	protected List<String> storeProperties() {
		return List.of("ratelimit.store=caffeine");
	}

}
