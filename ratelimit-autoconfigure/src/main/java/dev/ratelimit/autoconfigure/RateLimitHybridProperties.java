package dev.ratelimit.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the {@code hybrid} store: local decisions on quota leased from
 * Redis in the background.
 */
@ConfigurationProperties("ratelimit.hybrid")
public class RateLimitHybridProperties {

	/**
	 * How often each node reconciles its leases with Redis in one batch: how stale a
	 * node's view of the global count may get, and how long leased quota may stay
	 * unused on a node.
	 */
	private Duration syncInterval = Duration.ofMillis(100);

	public Duration getSyncInterval() {
		return this.syncInterval;
	}

	public void setSyncInterval(Duration syncInterval) {
		this.syncInterval = syncInterval;
	}

}
