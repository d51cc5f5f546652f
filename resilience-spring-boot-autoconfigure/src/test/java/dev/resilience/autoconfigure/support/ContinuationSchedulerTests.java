package dev.resilience.autoconfigure.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.internal.RefusableTask;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ContinuationScheduler}: the tasks its {@code shutdownNow()} drops are told.
 */
class ContinuationSchedulerTests {

	private final ScheduledExecutorService scheduler = ContinuationScheduler.create(false);

	private final List<RejectedExecutionException> refusals = new ArrayList<>();

	@AfterEach
	void shutDown() {
		this.scheduler.shutdownNow();
	}

	@Test
	void shutdownNowTellsEachRefusableTaskItDrops() {
		this.scheduler.schedule(refusable(), 1, TimeUnit.HOURS);
		this.scheduler.schedule(() -> {
			throw new AssertionError("dropped, never run");
		}, 1, TimeUnit.HOURS);
		assertThat(this.scheduler.shutdownNow()).hasSize(2);
		assertThat(this.refusals).singleElement()
			.satisfies((refusal) -> assertThat(refusal).hasMessage("resilienceScheduler was shut down"));
	}

	@Test
	void aCancelledRefusableTaskLeavesTheQueueAndIsNotTold() {
		ScheduledFuture<?> task = this.scheduler.schedule(refusable(), 1, TimeUnit.HOURS);
		assertThat(task.cancel(false)).isTrue();
		assertThat(((ScheduledThreadPoolExecutor) this.scheduler).getQueue()).isEmpty();
		this.scheduler.shutdownNow();
		assertThat(this.refusals).isEmpty();
	}

	@Test
	void aRefusableTaskRunsWhenDue() throws Exception {
		List<String> ran = new ArrayList<>();
		this.scheduler.schedule(RefusableTask.of(() -> ran.add("ran"), this.refusals::add), 0, TimeUnit.NANOSECONDS)
			.get(5, TimeUnit.SECONDS);
		assertThat(ran).containsExactly("ran");
		assertThat(this.refusals).isEmpty();
	}

	private RefusableTask refusable() {
		return RefusableTask.of(() -> {
			throw new AssertionError("dropped, never run");
		}, this.refusals::add);
	}

}
