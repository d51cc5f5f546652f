package dev.resilience.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of the starter, their key names and events. The low-cardinality key values
 * are the tags of the matching meters; {@link DefaultResilienceObservationConvention} fills them.
 */
public enum ResilienceObservation implements ObservationDocumentation {

	/**
	 * A call that waited for a rate-limit slot or a returned concurrency permit, from the start of
	 * the wait until it was admitted, rejected or abandoned. A call admitted at once has none.
	 */
	RATE_LIMITER_WAIT {

		@Override
		public String getName() {
			return "resilience.ratelimiter.wait";
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { LowCardinalityKeys.NAME, LowCardinalityKeys.OUTCOME, LowCardinalityKeys.STORE };
		}

	},

	/**
	 * A call that was retried, from the verdict to retry its first failed attempt until the call
	 * ended; an event per attempt. A call that needs no retry has none.
	 */
	RETRY {

		@Override
		public String getName() {
			return "resilience.retry";
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { LowCardinalityKeys.NAME, LowCardinalityKeys.KIND };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { HighCardinalityKeys.ATTEMPT, HighCardinalityKeys.DELAY };
		}

		@Override
		public Observation.Event[] getEvents() {
			return new Observation.Event[] { Events.ATTEMPT };
		}

	},

	/** A poll, from its first attempt until it was fulfilled, exhausted or failed. */
	POLL {

		@Override
		public String getName() {
			return "resilience.poll";
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { LowCardinalityKeys.NAME, LowCardinalityKeys.OUTCOME };
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { HighCardinalityKeys.ATTEMPT };
		}

	},

	/** A pooled call's wait for a connection, until it got one or gave up. */
	POOL_CHECKOUT {

		@Override
		public String getName() {
			return "resilience.pool.checkout";
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { LowCardinalityKeys.POOL, LowCardinalityKeys.OUTCOME };
		}

	},

	/** The work with a pooled connection, until it returned, threw or timed out. */
	POOL_OPERATION {

		@Override
		public String getName() {
			return "resilience.pool.operation";
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return new KeyName[] { LowCardinalityKeys.POOL, LowCardinalityKeys.OUTCOME };
		}

	};

	@Override
	public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
		return DefaultResilienceObservationConvention.class;
	}

	/** The low-cardinality keys: the tags of the meters. */
	public enum LowCardinalityKeys implements KeyName {

		/** The limiter's, retry's or poll's name. */
		NAME {
			@Override
			public String asString() {
				return "name";
			}
		},

		/** The pool's name. */
		POOL {
			@Override
			public String asString() {
				return "pool";
			}
		},

		/**
		 * How it ended: {@code waited}, {@code rejected} or {@code cancelled} for a wait;
		 * {@code fulfilled}, {@code exhausted} or {@code error} for a poll; {@code acquired},
		 * {@code timeout} or {@code cancelled} for a checkout; {@code success}, {@code error} or
		 * {@code timeout} for an operation.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "outcome";
			}
		},

		/** The store of the limiter: {@code in-memory}, {@code redis}, or a store of one's own. */
		STORE {
			@Override
			public String asString() {
				return "store";
			}
		},

		/**
		 * How a retried call ended, as the {@code resilience.retry.calls} meter's {@code kind}:
		 * {@code successful_with_retry}, {@code failed_with_retry}, {@code failed_budget_exhausted},
		 * or {@code cancelled}.
		 */
		KIND {
			@Override
			public String asString() {
				return "kind";
			}
		}

	}

	/** The high-cardinality keys. */
	public enum HighCardinalityKeys implements KeyName {

		/** The number of the last attempt, from 1. */
		ATTEMPT {
			@Override
			public String asString() {
				return "attempt";
			}
		},

		/** The delay before the last attempt, in milliseconds. */
		DELAY {
			@Override
			public String asString() {
				return "delay";
			}
		}

	}

	/** The events. */
	public static final class Events {

		/**
		 * An attempt of a retried call ended; its contextual name is
		 * {@code attempt <n> <outcome> after a delay of <ms> ms}.
		 */
		public static final Observation.Event ATTEMPT = Observation.Event.of("resilience.retry.attempt",
				"attempt %d %s after a delay of %d ms");

		private Events() {
		}

	}

}
