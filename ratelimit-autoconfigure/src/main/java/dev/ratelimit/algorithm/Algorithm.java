package dev.ratelimit.algorithm;

/**
 * The five algorithms, named as in configuration.
 */
public enum Algorithm {

	FIXED_WINDOW("fixed-window"),

	SLIDING_WINDOW_LOG("sliding-window-log"),

	SLIDING_WINDOW_COUNTER("sliding-window-counter"),

	TOKEN_BUCKET("token-bucket"),

	LEAKY_BUCKET("leaky-bucket");

	private final String configName;

	Algorithm(String configName) {
		this.configName = configName;
	}

	/**
	 * The name used in configuration, headers and the actuator.
	 */
	public String configName() {
		return this.configName;
	}

}
