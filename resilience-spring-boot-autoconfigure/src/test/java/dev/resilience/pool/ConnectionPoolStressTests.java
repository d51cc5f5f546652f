package dev.resilience.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 200 callers on a pool of 4, every other one hanging past its deadline and ignoring interrupts:
 * each caller gets a result or a timeout no later than its deadline plus half of it, and once the hung
 * work is let go, every connection ever made is either idle or destroyed, and the connections
 * destroyed after serving work are those of hung work (and of quick work that ended late).
 */
class ConnectionPoolStressTests {

	private static final int CALLERS = 200;

	private static final Duration DEADLINE = Duration.ofSeconds(2);

	/**
	 * How late a caller may be back: a thread woken at the deadline can wait that long for a core
	 * on a loaded machine (100 ms made the test flaky beside other builds). A caller held until its
	 * hung work ended would never be back, and one whose deadline started again after its checkout
	 * would be up to a whole deadline late (most callers wait for a connection most of theirs).
	 */
	private static final Duration GRACE = DEADLINE.dividedBy(2);

	@Test
	void everyCallerIsBackByItsDeadlineAndNoConnectionLeaks() throws Exception {
		// A first, smaller round compiles the paths taken at the deadline, so that the measured
		// round times the pool rather than the interpreter.
		run(CALLERS / 10, (slowest) -> {
		});
		run(CALLERS, (slowest) -> assertThat(slowest).isLessThanOrEqualTo(DEADLINE.plus(GRACE)));
	}

	private void run(int callerCount, Consumer<Duration> checkSlowest) throws Exception {
		CountingFactory factory = new CountingFactory();
		Hang hang = new Hang();
		ExecutorService callers = Executors.newFixedThreadPool(callerCount);
		try (ConnectionPool<Integer> pool = ConnectionPool.builder("stress", factory)
			.settings(ConnectionPoolSettings.builder().maxSize(4).build())
			.build()) {
			CountDownLatch start = new CountDownLatch(1);
			AtomicInteger results = new AtomicInteger();
			AtomicInteger checkoutTimeouts = new AtomicInteger();
			AtomicInteger operationTimeouts = new AtomicInteger();
			// Quick work that ran but ended after its caller's deadline (a busy machine can start it
			// late) may cost its connection as hung work does.
			List<QuickCall> quickCalls = new ArrayList<>();
			// The connections work ran with: a connection made for a caller that had stopped waiting
			// (a busy machine can start its creation late) is closed unused when nobody waits for it.
			Set<Integer> used = ConcurrentHashMap.newKeySet();
			List<Future<Duration>> lateness = new ArrayList<>();
			for (int i = 0; i < callerCount; i++) {
				boolean hangs = i % 2 == 0;
				AtomicBoolean ran = new AtomicBoolean();
				AtomicBoolean timedOut = new AtomicBoolean();
				if (!hangs) {
					quickCalls.add(new QuickCall(ran, timedOut));
				}
				lateness.add(callers.submit(() -> {
					start.await();
					long begin = System.nanoTime();
					try {
						pool.withConnection(DEADLINE, (connection) -> {
							used.add(connection);
							if (hangs) {
								return hang.hang();
							}
							ran.set(true);
							return connection;
						});
						results.incrementAndGet();
					}
					catch (CheckoutTimeoutException ex) {
						checkoutTimeouts.incrementAndGet();
					}
					catch (OperationTimeoutException ex) {
						operationTimeouts.incrementAndGet();
						timedOut.set(true);
					}
					return Duration.ofNanos(System.nanoTime() - begin);
				}));
			}
			start.countDown();
			Duration slowest = Duration.ZERO;
			for (Future<Duration> caller : lateness) {
				Duration took = caller.get(30, TimeUnit.SECONDS);
				slowest = (took.compareTo(slowest) > 0) ? took : slowest;
			}
			checkSlowest.accept(slowest);
			assertThat(results.get() + checkoutTimeouts.get() + operationTimeouts.get()).isEqualTo(callerCount);
			assertThat(results).hasPositiveValue();
			assertThat(operationTimeouts).hasPositiveValue();

			hang.release();
			// Hung work ends and lets go of its connection, which the pool (off the callers'
			// threads) has invalidated and replaced: wait until all of that has happened.
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				ConnectionPoolStats stats = pool.getStats();
				assertThat(stats.abandoned()).isZero();
				assertThat(stats.active()).isZero();
				assertThat(stats.pending()).isZero();
				// Each hung work that ran cost its connection. So did quick work that ran past its
				// deadline, unless it finished at that very moment (it gave its connection back
				// itself). Timed-out work that never got a thread gave its connection back unused.
				long quickWorkLate = quickCalls.stream().filter(QuickCall::ranLate).count();
				long usedDestroyed = factory.destroyedIds.stream().filter(used::contains).count();
				assertThat(usedDestroyed).isBetween((long) hang.left.get(), hang.left.get() + quickWorkLate);
				assertThat(factory.created.get() - factory.destroyed.get()).isEqualTo(stats.idle());
			});
			assertThat(hang.left).hasPositiveValue();
		}
		finally {
			hang.release();
			callers.shutdownNow();
			assertThat(callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
	}

	/** A call whose work returns at once: whether its work ran, and whether its caller timed out. */
	private record QuickCall(AtomicBoolean ran, AtomicBoolean timedOut) {

		boolean ranLate() {
			return this.ran.get() && this.timedOut.get();
		}

	}

}
