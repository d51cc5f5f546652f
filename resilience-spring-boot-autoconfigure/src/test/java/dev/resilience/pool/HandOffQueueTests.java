package dev.resilience.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The worker threads' queue: a plain FIFO queue to its users, whose sleepers are woken as needed. */
class HandOffQueueTests {

	@Test
	void tasksComeOutInTheOrderTheyWentIn() throws Exception {
		HandOffQueue queue = new HandOffQueue();
		Runnable first = () -> {
		};
		Runnable second = () -> {
		};
		Runnable third = () -> {
		};
		assertThat(queue.offer(first)).isTrue();
		queue.put(second);
		assertThat(queue.offer(third, 1, TimeUnit.SECONDS)).isTrue();
		assertThat(queue).containsExactly(first, second, third);
		assertThat(queue.size()).isEqualTo(3);
		assertThat(queue.peek()).isSameAs(first);
		assertThat(queue.poll()).isSameAs(first);
		assertThat(queue.take()).isSameAs(second);
		assertThat(queue.poll(1, TimeUnit.SECONDS)).isSameAs(third);
		assertThat(queue.isEmpty()).isTrue();
		assertThat(queue.poll()).isNull();
		assertThat(queue.peek()).isNull();
		assertThat(queue.remainingCapacity()).isEqualTo(Integer.MAX_VALUE);
	}

	@Test
	void takeAndATimedPollHandOutTheTasksQueuedBeforeThemOneEach() throws Exception {
		HandOffQueue queue = new HandOffQueue();
		Runnable first = () -> {
		};
		Runnable second = () -> {
		};
		queue.offer(first);
		queue.offer(second);
		assertThat(queue.isEmpty()).isFalse();
		assertThat(queue.take()).isSameAs(first);
		assertThat(queue.isEmpty()).isFalse();
		assertThat(queue.poll(1, TimeUnit.SECONDS)).isSameAs(second);
		assertThat(queue.isEmpty()).isTrue();
	}

	@Test
	void aTimedPollOfAnEmptyQueueEndsEmptyHanded() throws Exception {
		HandOffQueue queue = new HandOffQueue();
		assertThat(queue.poll(0, TimeUnit.NANOSECONDS)).isNull();
		assertThat(queue.poll(1, TimeUnit.MILLISECONDS)).isNull();
	}

	@Test
	void drainingAndRemovingTakeTasksOut() {
		HandOffQueue queue = new HandOffQueue();
		List<Runnable> tasks = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			// A lambda written once would be one object: each task is distinct.
			Runnable task = new CountDownLatch(1)::countDown;
			tasks.add(task);
			queue.offer(task);
		}
		assertThat(queue.remove(tasks.get(4))).isTrue();
		assertThat(queue.remove(tasks.get(4))).isFalse();
		List<Runnable> drained = new ArrayList<>();
		assertThat(queue.drainTo(drained, 2)).isEqualTo(2);
		assertThat(drained).containsExactly(tasks.get(0), tasks.get(1));
		assertThat(queue.drainTo(drained)).isEqualTo(2);
		assertThat(drained).containsExactlyElementsOf(tasks.subList(0, 4));
		assertThat(queue).isEmpty();
	}

	@Test
	void sleepingWorkersAreWokenByOffers() throws Exception {
		HandOffQueue queue = new HandOffQueue();
		CompletableFuture<Runnable> untimed = new CompletableFuture<>();
		CompletableFuture<Runnable> timed = new CompletableFuture<>();
		Thread first = new Thread(() -> untimed.complete(take(queue)));
		Thread second = new Thread(() -> {
			try {
				timed.complete(queue.poll(1, TimeUnit.HOURS));
			}
			catch (InterruptedException ex) {
				timed.completeExceptionally(ex);
			}
		});
		first.start();
		second.start();
		// Both spun without finding anything and sleep now.
		await().until(() -> first.getState() == Thread.State.WAITING
				&& second.getState() == Thread.State.TIMED_WAITING);
		Runnable one = () -> {
		};
		Runnable two = () -> {
		};
		queue.offer(one);
		queue.offer(two);
		assertThat(List.of(untimed.get(10, TimeUnit.SECONDS), timed.get(10, TimeUnit.SECONDS)))
			.containsExactlyInAnyOrder(one, two);
	}

	private static Runnable take(HandOffQueue queue) {
		try {
			return queue.take();
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void aSleepingWorkerCanBeInterrupted() throws Exception {
		HandOffQueue queue = new HandOffQueue();
		CompletableFuture<Throwable> failure = new CompletableFuture<>();
		Thread worker = new Thread(() -> {
			try {
				queue.take();
			}
			catch (Throwable ex) {
				failure.complete(ex);
			}
		});
		worker.start();
		await().until(() -> worker.getState() == Thread.State.WAITING);
		worker.interrupt();
		assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
		// The interrupted sleeper is no longer counted: an offer after it stays for the next taker.
		Runnable task = () -> {
		};
		queue.offer(task);
		assertThat(queue.poll()).isSameAs(task);
	}

	@Test
	void manyProducersAndWorkersLoseNoTaskAndNoWakeUp() throws Exception {
		int producers = 8;
		int tasksEach = 20_000;
		ThreadPoolExecutor workers = new ThreadPoolExecutor(4, 4, 30, TimeUnit.SECONDS, new HandOffQueue());
		ExecutorService producing = Executors.newFixedThreadPool(producers);
		try {
			AtomicInteger ran = new AtomicInteger();
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> done = new ArrayList<>();
			for (int p = 0; p < producers; p++) {
				done.add(producing.submit(() -> {
					start.await();
					for (int i = 0; i < tasksEach; i++) {
						workers.execute(ran::incrementAndGet);
						if (i % 1_000 == 0) {
							// Let the workers run dry and fall asleep now and then.
							Thread.sleep(1);
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> producer : done) {
				producer.get(60, TimeUnit.SECONDS);
			}
			await().atMost(java.time.Duration.ofSeconds(60))
				.untilAsserted(() -> assertThat(ran).hasValue(producers * tasksEach));
			assertThat(workers.getQueue()).isEmpty();
			// A task offered once everybody sleeps still runs.
			await().untilAsserted(() -> assertThat(workers.getActiveCount()).isZero());
			CompletableFuture<String> last = new CompletableFuture<>();
			workers.execute(() -> last.complete("ran"));
			assertThat(last.get(10, TimeUnit.SECONDS)).isEqualTo("ran");
			// The executor counts a task as completed only after it returned, which is after it
			// completed the future above.
			await().untilAsserted(
					() -> assertThat(workers.getCompletedTaskCount()).isEqualTo(producers * tasksEach + 1));
		}
		finally {
			producing.shutdownNow();
			workers.shutdownNow();
		}
	}

}
