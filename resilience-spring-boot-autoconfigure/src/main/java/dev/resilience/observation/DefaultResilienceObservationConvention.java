package dev.resilience.observation;

import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

import dev.resilience.observation.ResilienceObservation.HighCardinalityKeys;
import dev.resilience.observation.ResilienceObservation.LowCardinalityKeys;

/**
 * The default names and tags: the observation's own name, a contextual name of the observation and
 * the name observed (such as {@code resilience.retry partner}), and the tags of the matching
 * meters.
 */
public class DefaultResilienceObservationConvention implements ResilienceObservationConvention {

	/** The outcome of an observation that has not ended. */
	private static final String UNKNOWN = "unknown";

	/**
	 * Returns {@code null}: one convention serves the five observations, so each keeps the name
	 * its context was given ({@link ResilienceObservation#getName()}).
	 * @return {@code null}
	 */
	@Override
	public @Nullable String getName() {
		return null;
	}

	@Override
	public String getContextualName(ResilienceObservationContext context) {
		return context.getObservation().getName() + " " + context.getResilienceName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(ResilienceObservationContext context) {
		String outcome = (context.getOutcome() != null) ? context.getOutcome() : UNKNOWN;
		return switch (context.getObservation()) {
			case RATE_LIMITER_WAIT -> KeyValues.of(LowCardinalityKeys.NAME.withValue(context.getResilienceName()),
					LowCardinalityKeys.OUTCOME.withValue(outcome),
					LowCardinalityKeys.STORE.withValue((context.getStore() != null) ? context.getStore() : UNKNOWN));
			case RETRY -> KeyValues.of(LowCardinalityKeys.NAME.withValue(context.getResilienceName()),
					LowCardinalityKeys.KIND.withValue(outcome));
			case POLL -> KeyValues.of(LowCardinalityKeys.NAME.withValue(context.getResilienceName()),
					LowCardinalityKeys.OUTCOME.withValue(outcome));
			case POOL_CHECKOUT, POOL_OPERATION -> KeyValues.of(
					LowCardinalityKeys.POOL.withValue(context.getResilienceName()),
					LowCardinalityKeys.OUTCOME.withValue(outcome));
		};
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(ResilienceObservationContext context) {
		return switch (context.getObservation()) {
			case RETRY -> KeyValues.of(HighCardinalityKeys.ATTEMPT.withValue(Integer.toString(context.getAttempt())),
					HighCardinalityKeys.DELAY.withValue(Long.toString(context.getDelayMillis())));
			case POLL -> KeyValues.of(HighCardinalityKeys.ATTEMPT.withValue(Integer.toString(context.getAttempt())));
			default -> KeyValues.empty();
		};
	}

}
