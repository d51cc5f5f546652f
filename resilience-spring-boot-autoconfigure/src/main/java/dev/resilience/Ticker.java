package dev.resilience;

/**
 * A source of monotonic time in nanoseconds, read by every time-dependent algorithm of the
 * starter. Production code uses {@link #system()}; tests pass a ticker they advance by hand,
 * so that time-dependent behaviour is checked exactly instead of by sleeping.
 */
@FunctionalInterface
public interface Ticker {

	/**
	 * Returns the current reading in nanoseconds. Only differences between two readings of the
	 * same ticker have a meaning, as with {@link System#nanoTime()}.
	 * @return the current reading in nanoseconds
	 */
	long read();

	/**
	 * Returns the ticker backed by {@link System#nanoTime()}.
	 * @return the system ticker
	 */
	static Ticker system() {
		return System::nanoTime;
	}

}
