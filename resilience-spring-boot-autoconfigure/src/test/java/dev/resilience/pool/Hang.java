package dev.resilience.pool;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Work that hangs until released and ignores interrupts while it hangs (as a blocking socket read
 * does), counting the interrupts it swallowed and the work that entered and left.
 */
final class Hang {

	private final CountDownLatch released = new CountDownLatch(1);

	final CountDownLatch entered;

	final AtomicInteger interrupts = new AtomicInteger();

	final AtomicInteger left = new AtomicInteger();

	Hang() {
		this(1);
	}

	Hang(int expectedEntries) {
		this.entered = new CountDownLatch(expectedEntries);
	}

	/**
	 * Hangs the calling thread until {@link #release()}, ignoring interrupts.
	 * @param <R> any type
	 * @return never a value: {@code null} once released
	 */
	<R> R hang() {
		this.entered.countDown();
		try {
			while (true) {
				try {
					this.released.await();
					return null;
				}
				catch (InterruptedException ex) {
					this.interrupts.incrementAndGet();
				}
			}
		}
		finally {
			this.left.incrementAndGet();
		}
	}

	void release() {
		this.released.countDown();
	}

}
