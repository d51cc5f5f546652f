package dev.resilience.pool;

/**
 * The brief busy wait of a thread that expects another to hand it something within microseconds:
 * a worker for its next task ({@link HandOffQueue}), a caller for the outcome of its work
 * ({@link DeadlinePool}). Counted in rounds, not read from a clock: it bounds a wait before
 * sleeping, it decides nothing.
 */
final class Spin {

	/*
	 * Chosen for speed. Sleeping and being woken costs a thread several microseconds, so waiting
	 * a little longer busily pays when the hand-off usually comes sooner: on 2 cores a worker's
	 * next task came 1 to 3 µs after its last one ended under a calling loop, and the outcome of
	 * work that does nothing came as soon. 512 rounds last about 10 to 40 µs depending on the
	 * processor's pause instruction and the cost of a yield; every 8th round yields the core, so
	 * that on a busy machine a spinning thread lets the thread it waits for run.
	 */

	/** Rounds of a busy wait before the thread sleeps. */
	static final int ROUNDS = 512;

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
