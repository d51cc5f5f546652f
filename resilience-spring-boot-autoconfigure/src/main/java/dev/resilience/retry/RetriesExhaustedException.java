package dev.resilience.retry;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Retrying ended without success. When the attempts threw, the last exception is rethrown as
 * itself, so callers' {@code catch} blocks keep working, and carries this exception as a
 * suppressed one ({@link Throwable#getSuppressed()}); when they returned results that
 * {@code retryIfResult} kept asking to retry, this exception itself is thrown, holding the last
 * result. Its message reads {@code Tried 4 times over 1530ms} (durations as {@code application.yml}
 * takes them, rounded to the millisecond), followed by why retrying stopped early when it did.
 */
public class RetriesExhaustedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final transient List<RetryAttempt> attempts;

	private final transient @Nullable Object lastResult;

	/**
	 * Creates the exception.
	 * @param message the message
	 * @param attempts every attempt, in order
	 * @param lastResult the last attempt's result, or {@code null} when it threw
	 */
	public RetriesExhaustedException(String message, List<RetryAttempt> attempts, @Nullable Object lastResult) {
		super(message, null, false, false);
		this.attempts = List.copyOf(attempts);
		this.lastResult = lastResult;
	}

	/**
	 * Returns the history of the call: every attempt, in order.
	 * @return the attempts
	 */
	public List<RetryAttempt> getAttempts() {
		return this.attempts;
	}

	/**
	 * Returns the last attempt's result, when retrying was for a result.
	 * @return the result, or {@code null} when the last attempt threw
	 */
	public @Nullable Object getLastResult() {
		return this.lastResult;
	}

	/**
	 * Returns the exhaustion carried by a failure as a suppressed exception: the one added last,
	 * which is the outermost retry's when retries are nested. One exception instance that ends
	 * several calls (a cached exception) carries the exhaustions of the first eight only, so that
	 * it does not grow with every call: past those, this is the eighth call's, not the latest's.
	 * @param failure the exception a retried call threw
	 * @return the exhaustion, or {@code null} when the failure carries none
	 */
	public static @Nullable RetriesExhaustedException of(Throwable failure) {
		Throwable[] suppressed = failure.getSuppressed();
		for (int i = suppressed.length - 1; i >= 0; i--) {
			if (suppressed[i] instanceof RetriesExhaustedException exhausted) {
				return exhausted;
			}
		}
		return null;
	}

}
