package dev.ratelimit.autoconfigure;

import dev.ratelimit.actuate.ShowKeys;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the {@code ratelimits} actuator endpoint.
 */
@ConfigurationProperties("ratelimit.actuator")
public class RateLimitActuatorProperties {

	/**
	 * Whether bucket listings show client keys as they are. Keys are API keys
	 * (secrets) or client IPs (personal data), so by default listings show only a short
	 * prefix and a stable hash of each key.
	 */
	private ShowKeys showKeys = ShowKeys.NEVER;

	/**
	 * Number of leading characters of a masked key that listings show; never more than
	 * half the key.
	 */
	private int maskPrefixLength = 4;

	private final Dashboard dashboard = new Dashboard();

	public ShowKeys getShowKeys() {
		return this.showKeys;
	}

	public void setShowKeys(ShowKeys showKeys) {
		this.showKeys = showKeys;
	}

	public int getMaskPrefixLength() {
		return this.maskPrefixLength;
	}

	public void setMaskPrefixLength(int maskPrefixLength) {
		this.maskPrefixLength = maskPrefixLength;
	}

	public Dashboard getDashboard() {
		return this.dashboard;
	}

	/**
	 * The dashboard page under the actuator base path.
	 */
	public static class Dashboard {

		/**
		 * Whether to serve a read-only live page of the rate limits at
		 * {actuator base path}/ratelimits-dashboard. It reads the ratelimits endpoint,
		 * which must be exposed.
		 */
		private boolean enabled;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

}
