package dev.ratelimit.web;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of the request path.
 */
public enum RateLimitObservationDocumentation implements ObservationDocumentation {

	/**
	 * One policy's decision of one request by its store, from asking the store to its
	 * verdict; a child of the request's observation.
	 */
	POLICY_DECISIONS {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultRateLimitDecisionObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

	};

	/**
	 * The low-cardinality keys of a decision's observation.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/** The policy's id. */
		POLICY {
			@Override
			public String asString() {
				return "policy";
			}
		},

		/** The tier the request was judged under. */
		TIER {
			@Override
			public String asString() {
				return "tier";
			}
		},

		/** The store asked: {@code caffeine}, {@code redis} or {@code hybrid}. */
		STORE {
			@Override
			public String asString() {
				return "store";
			}
		},

		/**
		 * What the verdict means for the request: {@code allowed}, {@code delayed},
		 * {@code rejected}, {@code shadow-rejected}, {@code shadow-delayed},
		 * {@code error} or {@code blocked}.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "outcome";
			}
		}

	}

}
