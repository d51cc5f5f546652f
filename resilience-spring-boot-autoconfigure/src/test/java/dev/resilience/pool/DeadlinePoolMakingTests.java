package dev.resilience.pool;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A blocking checkout that must make a connection borrows on a worker thread: what goes on in
 * Commons Pool meanwhile (a connection being destroyed, another being made, an idle one taken by
 * another caller) neither keeps the caller past its deadline nor makes the workers spin.
 */
class DeadlinePoolMakingTests {

	private final CountDownLatch gate = new CountDownLatch(1);

	private final List<AutoCloseable> cleanup = new ArrayList<>();

	@AfterEach
	void release() throws Exception {
		this.gate.countDown();
		for (AutoCloseable c : this.cleanup) {
			c.close();
		}
	}

	/** Creates and destroys that hang until the gate opens (ignoring interrupts), once armed. */
	final class GatedFactory implements ConnectionFactory<Integer> {

		final AtomicInteger created = new AtomicInteger();

		volatile boolean hangCreate;

		volatile boolean hangDestroy;

		final CountDownLatch createEntered = new CountDownLatch(1);

		final CountDownLatch destroyEntered = new CountDownLatch(1);

		@Override
		public Integer create() {
			if (this.hangCreate) {
				this.createEntered.countDown();
				hang();
			}
			return this.created.incrementAndGet();
		}

		@Override
		public void destroy(Integer connection) {
			if (this.hangDestroy) {
				this.destroyEntered.countDown();
				hang();
			}
		}

		private void hang() {
			while (true) {
				try {
					DeadlinePoolMakingTests.this.gate.await();
					return;
				}
				catch (InterruptedException ex) {
					// ignored, like a blocking socket call
				}
			}
		}

	}

	/** Platform workers that count the Making tasks handed to them. */
	static final class CountingWorkers extends ThreadPoolExecutor {

		final AtomicInteger makings = new AtomicInteger();

		CountingWorkers(int threads) {
			super(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (task) -> {
				Thread thread = new Thread(task, "making-worker");
				thread.setDaemon(true);
				return thread;
			});
		}

		@Override
		public void execute(Runnable task) {
			if (task.getClass().getSimpleName().equals("Making")) {
				this.makings.incrementAndGet();
			}
			super.execute(task);
		}

	}

	private DeadlinePool<Integer> pool(ConnectionFactory<Integer> factory, ConnectionPoolSettings settings,
			ThreadPoolExecutor workers) {
		DeadlinePool<Integer> pool = new DeadlinePool<>("making", factory, settings, System::nanoTime, List.of(),
				ContextSnapshotFactory.builder().build(), workers);
		this.cleanup.add(pool::close);
		return pool;
	}

	/** Evicts the idle connection on another thread; its destroy hangs inside Commons Pool. */
	private void evictWithHangingDestroy(DeadlinePool<Integer> pool, GatedFactory factory) throws Exception {
		Thread.sleep(20); // idle longer than max-idle-time
		factory.hangDestroy = true;
		Thread evictor = new Thread(() -> {
			try {
				pool.maintain();
			}
			catch (Exception ex) {
				// ignored
			}
		}, "making-evictor");
		evictor.setDaemon(true);
		evictor.start();
		assertThat(factory.destroyEntered.await(10, TimeUnit.SECONDS)).isTrue();
	}

	/**
	 * While a connection is being destroyed inside Commons Pool (its place still counted there, no
	 * longer in getNumActive), a checkout asks a worker once, not over and over until its deadline.
	 */
	@Test
	void aCallerDoesNotAskForAConnectionOverAndOverWhileOneIsBeingDestroyed() throws Exception {
		GatedFactory factory = new GatedFactory();
		CountingWorkers workers = new CountingWorkers(2);
		DeadlinePool<Integer> pool = pool(factory,
				ConnectionPoolSettings.builder().maxSize(1).maxIdleTime(Duration.ofMillis(1)).build(), workers);
		pool.withConnection(Duration.ofSeconds(5), (connection) -> connection);
		evictWithHangingDestroy(pool, factory);
		int before = workers.makings.get();

		assertThatExceptionOfType(CheckoutTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(Duration.ofMillis(300), (connection) -> connection));

		assertThat(workers.makings.get() - before).as("Making tasks handed over by one checkout").isLessThanOrEqualTo(2);
	}

	/**
	 * When Commons Pool is at capacity with a creation in progress but the pool's own counts show
	 * room (here: one connection being destroyed, one being made), a borrowing without a wait
	 * loops in Commons Pool's create() until the other creation ends, for good if it hangs: a
	 * worker borrows with the caller's time left instead.
	 */
	@Test
	void aWorkerDoesNotSpinInCommonsPoolWhileAnotherCreationHangs() throws Exception {
		GatedFactory factory = new GatedFactory();
		CountingWorkers workers = new CountingWorkers(4);
		DeadlinePool<Integer> pool = pool(factory,
				ConnectionPoolSettings.builder().maxSize(2).maxIdleTime(Duration.ofMillis(1)).build(), workers);
		pool.withConnection(Duration.ofSeconds(5), (connection) -> connection);
		evictWithHangingDestroy(pool, factory);
		factory.hangCreate = true;
		// one creation that hangs (room 2: one place held by the destroy, one made now)
		assertThatExceptionOfType(CheckoutTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(Duration.ofMillis(200), (connection) -> connection));
		assertThat(factory.createEntered.await(10, TimeUnit.SECONDS)).isTrue();
		// the pool's counts: idle 0, active 0, creating 1 < 2, so a Making goes to Commons Pool
		assertThatExceptionOfType(CheckoutTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(Duration.ofMillis(200), (connection) -> connection));

		Thread.sleep(200);
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		List<Long> spinning = new ArrayList<>();
		for (ThreadInfo info : threads.dumpAllThreads(false, false)) {
			boolean inCreate = Arrays.stream(info.getStackTrace())
				.anyMatch((frame) -> frame.getMethodName().equals("create")
						&& frame.getClassName().endsWith("GenericObjectPool"));
			boolean inFactory = Arrays.stream(info.getStackTrace())
				.anyMatch((frame) -> frame.getClassName().contains("GatedFactory"));
			if (info.getThreadName().equals("making-worker") && inCreate && !inFactory) {
				spinning.add(info.getThreadId());
			}
		}
		AtomicLong cpu = new AtomicLong();
		long[] start = spinning.stream().mapToLong(threads::getThreadCpuTime).toArray();
		Thread.sleep(500);
		for (int i = 0; i < start.length; i++) {
			cpu.addAndGet(threads.getThreadCpuTime(spinning.get(i)) - start[i]);
		}
		assertThat(spinning).as("workers left in GenericObjectPool.create, not in the factory, using " + Duration.ofNanos(cpu.get()) + " CPU over 500 ms").isEmpty();
		assertThat(Duration.ofNanos(cpu.get())).as("their CPU time over 500 ms").isLessThan(Duration.ofMillis(50));
	}

	/**
	 * A caller that saw a connection idle (so it did not ask a worker) but lost it to another caller
	 * waits in Commons Pool, which, with room, would call the factory on the caller's thread: it is
	 * refused there, and the caller borrows on a worker, back by its deadline. Racy: several rounds.
	 */
	@Test
	void aCallerThatLosesTheIdleConnectionIsStillBackAtItsDeadline() throws Exception {
		long worst = 0;
		List<String> createdOn = new CopyOnWriteArrayList<>();
		for (int round = 0; round < 15 && worst == 0; round++) {
			CountingFactory slow = new CountingFactory();
			CountingWorkers workers = new CountingWorkers(4);
			DeadlinePool<Integer> pool = new DeadlinePool<>("race", slow,
					ConnectionPoolSettings.builder().maxSize(2).minIdle(1).build(), System::nanoTime, List.of(),
					ContextSnapshotFactory.builder().build(), workers);
			slow.onCreate(() -> {
				createdOn.add(Thread.currentThread().getName());
				try {
					Thread.sleep(1_500);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
			CyclicBarrier together = new CyclicBarrier(2);
			AtomicLong late = new AtomicLong();
			List<Thread> callers = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				Thread caller = new Thread(() -> {
					try {
						together.await();
					}
					catch (Exception ex) {
						return;
					}
					long start = System.nanoTime();
					try {
						pool.withConnection(Duration.ofMillis(200), (connection) -> {
							Thread.sleep(20);
							return connection;
						});
					}
					catch (RuntimeException ex) {
						// a timeout is fine
					}
					long took = System.nanoTime() - start;
					if (took > Duration.ofMillis(900).toNanos()) {
						late.accumulateAndGet(took, Math::max);
					}
				}, "making-caller-" + i);
				callers.add(caller);
				caller.start();
			}
			for (Thread caller : callers) {
				caller.join();
			}
			worst = late.get();
			pool.close();
		}
		assertThat(Duration.ofNanos(worst)).as("a caller with a 200 ms timeout came back after; connections made on " + createdOn).isZero();
	}

}
