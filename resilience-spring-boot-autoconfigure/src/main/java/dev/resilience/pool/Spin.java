package dev.resilience.pool;

/**
 * The brief busy wait of a thread that expects another to hand it something within microseconds:
 * a worker for its next task ({@link HandOffQueue}), a caller for the outcome of its work
 * ({@link DeadlinePool}). Counted in rounds, not read from a clock: it bounds a wait before
 * sleeping, it decides nothing.
 */
final class Spin {

	/*
	 * Chosen for speed. Sleeping and being woken costs a thread several microseconds (a futex
	 * wake and the scheduler's latency: a park/unpark round trip of two threads took 6 to 7 µs
	 * on this 2-core machine), so waiting a little longer busily pays when the hand-off usually
	 * comes sooner: under a calling loop a worker's next task comes 1 to 3 µs after its last one
	 * ended, and the outcome of short work as soon. A pause took 0.1 to 0.3 µs here, so 256
	 * rounds bound the busy wait to some tens of microseconds on an idle machine. Every 8th
	 * round yields the core instead, so that on a busy machine the spinning thread lets others
	 * run, the one it waits for among them; there a yield may last much longer, but it costs
	 * nobody else the core.
	 */

	/** Rounds of a busy wait before the thread sleeps. */
	static final int ROUNDS = 256;

	private Spin() {
	}

	/**
	 * Pauses for one round of a busy wait.
	 * @param round the round, from 0
	 */
	static void pause(int round) {
		if ((round & 7) == 7) {
			Thread.yield();
		}
		else {
			Thread.onSpinWait();
		}
	}

}
