package dev.resilience.retry;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.observation.RecordingHandler;
import dev.resilience.observation.ResilienceObservations;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code resilience.retry} (docs/observability.md): a retried call is observed from its first retry
 * verdict until it ends, with an event per attempt and the last attempt and delay as
 * high-cardinality key values; a call that needs no retry is not observed.
 */
class RetryObservationTests {

	private final ManualTicker ticker = new ManualTicker();

	private final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	private final RecordingHandler handler = RecordingHandler.on(this.observations);

	private final Retry retry = Retry.builder("partner",
			RetryPolicy.builder().maxRetries(3).delay(Duration.ofMillis(100)).multiplier(2).jitter(Jitter.NONE).build())
		.ticker(this.ticker)
		.sleeper(this.ticker.sleeper())
		.observations(ResilienceObservations.of(this.observations))
		.build();

	@Test
	void callsThatNeedNoRetryMakeNothingForAnObservation() throws Throwable {
		assertThat(this.retry.call(() -> "ok")).isEqualTo("ok");
		Throwable notRetried = catchThrowable(() -> this.retry.call(() -> {
			throw new IllegalStateException("not retried");
		}, (failure) -> false, (result) -> false));
		assertThat(this.retry.callAsync(() -> CompletableFuture.completedFuture("ok"), this.scheduler)).isCompleted();

		assertThat(notRetried).isInstanceOf(IllegalStateException.class);
		assertThat(this.handler.offered()).isEmpty();
		assertThat(this.observations).doesNotHaveAnyObservation();
	}

	@Test
	void aRetriedCallIsOneObservationWithAnEventPerAttemptAsAChildOfTheCallersObservation() throws Throwable {
		AtomicInteger calls = new AtomicInteger();
		Observation caller = Observation.start("caller", this.observations);

		String result;
		try (Observation.Scope scope = caller.openScope()) {
			result = this.retry.call(() -> {
				if (calls.incrementAndGet() < 3) {
					throw new IOException("down");
				}
				return "ok";
			});
		}
		caller.stop();

		assertThat(result).isEqualTo("ok");
		assertThat(this.handler.events()).containsExactly(
				"resilience.retry: resilience.retry.attempt attempt 1 failed after a delay of 0 ms",
				"resilience.retry: resilience.retry.attempt attempt 2 failed after a delay of 100 ms",
				"resilience.retry: resilience.retry.attempt attempt 3 returned after a delay of 200 ms");
		assertThat(this.observations).hasNumberOfObservationsEqualTo(2)
			.hasObservationWithNameEqualTo("resilience.retry")
			.that()
			.hasContextualNameEqualTo("resilience.retry partner")
			.hasLowCardinalityKeyValue("name", "partner")
			.hasLowCardinalityKeyValue("kind", "successful_with_retry")
			.hasHighCardinalityKeyValue("attempt", "3")
			.hasHighCardinalityKeyValue("delay", "200")
			.hasEvent("resilience.retry.attempt", "attempt 2 failed after a delay of 100 ms")
			.hasParentObservationEqualTo(caller)
			.doesNotHaveError()
			.hasBeenStopped();
	}

	@Test
	void aCallThatFailsAfterItsRetriesRecordsTheFailure() {
		IOException down = new IOException("down");

		Throwable thrown = catchThrowable(() -> this.retry.call(() -> {
			throw down;
		}));

		assertThat(thrown).isSameAs(down);
		assertThat(this.handler.events()).hasSize(4);
		assertThat(this.observations).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("kind", "failed_with_retry")
			.hasHighCardinalityKeyValue("attempt", "4")
			.hasError(down)
			.hasBeenStopped();
	}

	@Test
	void anAsyncRetryStartsAtTheFirstRetryVerdictAndStopsWhenTheCallEndsOnTheScheduler() {
		AtomicInteger calls = new AtomicInteger();
		Observation caller = Observation.start("caller", this.observations);

		CompletableFuture<String> future;
		try (Observation.Scope scope = caller.openScope()) {
			future = this.retry.callAsync(() -> (calls.incrementAndGet() < 2)
					? CompletableFuture.failedFuture(new IOException("down")) : CompletableFuture.completedFuture("ok"),
					this.scheduler);
		}

		assertThat(future).isNotDone();
		assertThat(this.observations).hasObservationWithNameEqualTo("resilience.retry")
			.that()
			.hasBeenStarted()
			.isNotStopped();
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.observations).hasObservationWithNameEqualTo("resilience.retry")
			.that()
			.hasLowCardinalityKeyValue("kind", "successful_with_retry")
			.hasParentObservationEqualTo(caller)
			.hasBeenStopped();
	}

	@Test
	void aCancelledAsyncRetryStopsItsObservationAsCancelled() {
		CompletableFuture<String> future = this.retry
			.callAsync(() -> CompletableFuture.failedFuture(new IOException("down")), this.scheduler);

		future.cancel(false);

		assertThat(this.observations).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("kind", "cancelled")
			.hasHighCardinalityKeyValue("attempt", "1")
			.doesNotHaveError()
			.hasBeenStopped();
	}

}
