package dev.resilience.ratelimit.store;

/**
 * How a decision steps aside after losing its key's compare-and-set to another thread, before it
 * decides again; and how a new key waits for room while another thread evicts, or puts the keys
 * counted.
 * <p>
 * Threads on one key that decide again at once keep failing each other's compare-and-set (two
 * threads decided 8 million calls a second that way, against 21 million stepping aside), so the
 * loser keeps off the key's state for a moment. It waits on the clock: parking, or
 * {@link Thread#onSpinWait()}, would block a thread that must not block (an event loop deciding
 * an asynchronous call), and BlockHound reports both. Real time, not the store's ticker, which a
 * test's manual clock would stop. Nothing a test can observe depends on how long the wait is, so
 * PIT leaves this class out, as it does {@code dev.resilience.pool.Spin}.
 */
final class LostRaceBackOff {

	/** How long a decision waits after losing once. */
	private static final long FIRST_WAIT_NANOS = 1_000;

	/** How often the wait doubles over losses in a row: at most 16 µs. */
	private static final int MAX_DOUBLINGS = 4;

	private LostRaceBackOff() {
	}

	/**
	 * Waits after a decision lost its key's compare-and-set, or found another thread busy.
	 * @param lost how many times in a row the decision lost it, from 1
	 */
	static void pause(int lost) {
		long start = System.nanoTime();
		long nanos = FIRST_WAIT_NANOS << Math.min(lost - 1, MAX_DOUBLINGS);
		while (System.nanoTime() - start < nanos) {
			// off the key's state meanwhile, which the winner goes on writing
		}
	}

}
