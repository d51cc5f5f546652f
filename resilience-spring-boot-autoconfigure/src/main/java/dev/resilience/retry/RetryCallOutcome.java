package dev.resilience.retry;

import java.util.Locale;

/** How a retried call ended, the {@code kind} tag of {@code resilience.retry.calls}. */
public enum RetryCallOutcome {

	/** The first attempt succeeded. */
	SUCCESSFUL_WITHOUT_RETRY,

	/** An attempt after the first succeeded. */
	SUCCESSFUL_WITH_RETRY,

	/** The first attempt failed and was not retried. */
	FAILED_WITHOUT_RETRY,

	/** Retrying ended in failure. */
	FAILED_WITH_RETRY,

	/** A retry was due but the retry budget had none left. */
	FAILED_BUDGET_EXHAUSTED;

	/**
	 * Returns the name as a meter tag: {@code successful_without_retry}.
	 * @return the tag value
	 */
	public String tag() {
		return name().toLowerCase(Locale.ROOT);
	}

	static RetryCallOutcome of(boolean successful, int attempts) {
		if (successful) {
			return (attempts == 1) ? SUCCESSFUL_WITHOUT_RETRY : SUCCESSFUL_WITH_RETRY;
		}
		return (attempts == 1) ? FAILED_WITHOUT_RETRY : FAILED_WITH_RETRY;
	}

}
