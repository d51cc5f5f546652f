package dev.resilience.internal;

import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * A scheduled task that is told when a scheduler drops it unrun, as
 * {@link java.util.concurrent.ExecutorService#shutdownNow()} drops the tasks not yet due: a call
 * waiting for it then ends instead of waiting for good. Only schedulers that know this interface
 * tell (the starter's {@code resilienceScheduler} does); others run it as a plain task.
 */
public interface RefusableTask extends Runnable {

	/**
	 * Told, instead of running, that the scheduler dropped the task.
	 * @param refusal why
	 */
	void refuse(RejectedExecutionException refusal);

	/**
	 * Makes a task that runs one action, or tells another of its refusal.
	 * @param task what runs when it is due
	 * @param onRefusal what is told when the scheduler drops it
	 * @return the task
	 */
	static RefusableTask of(Runnable task, Consumer<RejectedExecutionException> onRefusal) {
		Objects.requireNonNull(task, "task");
		Objects.requireNonNull(onRefusal, "onRefusal");
		return new RefusableTask() {

			@Override
			public void run() {
				task.run();
			}

			@Override
			public void refuse(RejectedExecutionException refusal) {
				onRefusal.accept(refusal);
			}

		};
	}

}
