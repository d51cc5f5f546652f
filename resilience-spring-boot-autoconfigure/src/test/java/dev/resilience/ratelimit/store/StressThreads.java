package dev.resilience.ratelimit.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fixed pool of threads for a stress test, registered as a field with
 * {@code @RegisterExtension}: after each test it interrupts what still runs and fails the test if a
 * thread has not ended 10 seconds later.
 */
final class StressThreads implements AfterEachCallback {

	private final ExecutorService executor;

	StressThreads(int threads) {
		this.executor = Executors.newFixedThreadPool(threads);
	}

	/** Runs the task on one of the threads. */
	<T> Future<T> submit(Callable<T> task) {
		return this.executor.submit(task);
	}

	/**
	 * Runs {@code task} once for each thread index from 0 to {@code threads - 1}, all at the same
	 * time, and waits up to a minute for each.
	 * @return each run's result, in index order
	 */
	<T> List<T> runEach(int threads, Task<T> task) throws Exception {
		List<Future<T>> runs = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			int thread = i;
			runs.add(this.executor.submit(() -> task.run(thread)));
		}
		List<T> results = new ArrayList<>();
		for (Future<T> run : runs) {
			results.add(run.get(60, TimeUnit.SECONDS));
		}
		return results;
	}

	@Override
	public void afterEach(ExtensionContext context) throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	/** What one thread of {@link #runEach} does. */
	@FunctionalInterface
	interface Task<T> {

		T run(int thread) throws Exception;

	}

}
