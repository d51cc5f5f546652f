package dev.resilience.pool;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The pool's own thread that gives connections back: one daemon thread, made on the first task,
 * running the tasks in order, asleep in between, until shut down.
 */
class ParkingThreadTests {

	private final ParkingThread executor = new ParkingThread("parking-test");

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
	}

	@Test
	void runsTheTasksInOrderOnOneDaemonThreadOfItsName() throws Exception {
		List<String> ran = new CopyOnWriteArrayList<>();
		CountDownLatch done = new CountDownLatch(100);
		for (int i = 0; i < 100; i++) {
			int task = i;
			this.executor.execute(() -> {
				Thread thread = Thread.currentThread();
				ran.add(task + " " + thread.getName() + " " + thread.isDaemon());
				done.countDown();
			});
		}
		assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(ran).hasSize(100).first().isEqualTo("0 parking-test true");
		assertThat(ran).last().isEqualTo("99 parking-test true");
		assertThat(ran).isSortedAccordingTo((a, b) -> Integer.compare(Integer.parseInt(a.split(" ")[0]),
				Integer.parseInt(b.split(" ")[0])));
	}

	@Test
	void wakesUpForATaskGivenWhileItSleeps() throws Exception {
		CountDownLatch first = new CountDownLatch(1);
		this.executor.execute(first::countDown);
		assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
		Thread.sleep(50);
		CountDownLatch second = new CountDownLatch(1);
		this.executor.execute(second::countDown);
		assertThat(second.await(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aTaskThatThrowsDoesNotStopTheNext() throws Exception {
		CountDownLatch next = new CountDownLatch(1);
		this.executor.execute(() -> {
			throw new IllegalStateException("broken task");
		});
		this.executor.execute(next::countDown);
		assertThat(next.await(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void shutdownRunsTheTasksGivenThenEndsAndRefusesNewOnes() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		AtomicBoolean queuedRan = new AtomicBoolean();
		this.executor.execute(() -> awaitQuietly(release));
		this.executor.execute(() -> queuedRan.set(true));
		this.executor.shutdown();
		assertThat(this.executor.isShutdown()).isTrue();
		assertThat(this.executor.isTerminated()).isFalse();
		assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> this.executor.execute(() -> {
		})).withMessage("parking-test is shut down");
		release.countDown();
		assertThat(this.executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.executor.isTerminated()).isTrue();
		assertThat(queuedRan).isTrue();
	}

	@Test
	void shutdownNowInterruptsTheRunningTaskAndReturnsTheOthers() throws Exception {
		CountDownLatch running = new CountDownLatch(1);
		AtomicBoolean interrupted = new AtomicBoolean();
		this.executor.execute(() -> {
			running.countDown();
			try {
				Thread.sleep(10_000);
			}
			catch (InterruptedException ex) {
				interrupted.set(true);
			}
		});
		Runnable queued = () -> {
		};
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		this.executor.execute(queued);
		assertThat(this.executor.shutdownNow()).containsExactly(queued);
		assertThat(this.executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		assertThat(interrupted).isTrue();
	}

	@Test
	void aThreadAsleepIsWokenToEndWhenShutDown() throws Exception {
		CountDownLatch ran = new CountDownLatch(1);
		this.executor.execute(ran::countDown);
		assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.executor.isShutdown()).isFalse();
		assertThat(this.executor.awaitTermination(1, TimeUnit.MILLISECONDS)).isFalse();
		assertThat(this.executor.isTerminated()).isFalse();
		this.executor.shutdown();
		assertThat(this.executor.isShutdown()).isTrue();
		assertThat(this.executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aThreadNeverStartedIsTerminatedOnceShutDown() throws Exception {
		assertThat(this.executor.isTerminated()).isFalse();
		this.executor.shutdown();
		assertThat(this.executor.isTerminated()).isTrue();
		assertThat(this.executor.awaitTermination(1, TimeUnit.MILLISECONDS)).isTrue();
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}


	/**
	 * A task that execute accepted (it threw no RejectedExecutionException) runs, even when a
	 * shutdown comes between execute's check and its queueing, and the thread ended on an empty
	 * queue. Racy by nature: many trials, each with a thread giving tasks while the executor shuts
	 * down (it lost one within a hundred trials before).
	 */
	@Test
	void aTaskAcceptedAsTheExecutorShutsDownRuns() throws Exception {
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
		for (int trial = 0; trial < 1_000 && System.nanoTime() < until; trial++) {
			ParkingThread racing = new ParkingThread("racing");
			AtomicLong accepted = new AtomicLong();
			AtomicLong ran = new AtomicLong();
			Thread giver = new Thread(() -> {
				while (true) {
					try {
						racing.execute(ran::incrementAndGet);
						accepted.incrementAndGet();
					}
					catch (RejectedExecutionException ex) {
						return;
					}
				}
			});
			giver.start();
			LockSupport.parkNanos((trial % 50) * 1_000L);
			racing.shutdown();
			giver.join(10_000);
			assertThat(racing.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
			assertThat(ran.get()).as("tasks run of those accepted, trial %d", trial).isEqualTo(accepted.get());
		}
	}

	/**
	 * A task given while the thread, having found the queue empty, has not yet looked at whether
	 * it is shut down, and a shutdown right after: the task was accepted, so it runs.
	 */
	@Test
	void aTaskGivenJustBeforeTheShutdownRunsThoughTheThreadFoundTheQueueEmpty() throws Exception {
		CountDownLatch polledEmpty = new CountDownLatch(1);
		CountDownLatch goOn = new CountDownLatch(1);
		AtomicBoolean held = new AtomicBoolean();
		ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>() {

			@Override
			public Runnable poll() {
				Runnable task = super.poll();
				// the thread's first empty poll after its first task: held there once
				if (task == null && Thread.currentThread().getName().equals("held") && !held.getAndSet(true)) {
					polledEmpty.countDown();
					try {
						goOn.await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
				return task;
			}

		};
		ParkingThread holding = new ParkingThread("held", queue);
		holding.execute(() -> {
		});
		assertThat(polledEmpty.await(10, TimeUnit.SECONDS)).isTrue();
		AtomicBoolean ran = new AtomicBoolean();

		holding.execute(() -> ran.set(true));
		holding.shutdown();
		goOn.countDown();

		assertThat(holding.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		assertThat(ran).isTrue();
	}

}
