package dev.resilience.poll;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.observation.ResilienceObservations;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code resilience.poll} (docs/observability.md): each poll, blocking or scheduled, from its first
 * attempt until it is fulfilled, exhausted or fails, with the number of attempts made.
 */
class PollerObservationTests {

	private final ManualTicker ticker = new ManualTicker();

	private final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	@Test
	void aFulfilledPollIsObservedWithItsAttemptsAsAChildOfTheCallersObservation() {
		Poller<String> poller = poller(values("", "", "DONE"));
		Observation caller = Observation.start("caller", this.observations);

		String result;
		try (Observation.Scope scope = caller.openScope()) {
			result = poller.await();
		}
		caller.stop();

		assertThat(result).isEqualTo("DONE");
		assertThat(this.observations).hasNumberOfObservationsEqualTo(2)
			.hasObservationWithNameEqualTo("resilience.poll")
			.that()
			.hasContextualNameEqualTo("resilience.poll export")
			.hasLowCardinalityKeyValue("name", "export")
			.hasLowCardinalityKeyValue("outcome", "fulfilled")
			.hasHighCardinalityKeyValue("attempt", "3")
			.hasParentObservationEqualTo(caller)
			.doesNotHaveError()
			.hasBeenStopped();
	}

	@Test
	void anExhaustedPollRecordsTheExhaustion() {
		Throwable thrown = catchThrowable(() -> poller(values("", "", "")).await());

		assertThat(thrown).isInstanceOf(PollExhaustedException.class);
		assertThat(this.observations).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("outcome", "exhausted")
			.hasHighCardinalityKeyValue("attempt", "3")
			.hasError(thrown)
			.hasBeenStopped();
	}

	@Test
	void aPollEndedByItsSuppliersExceptionIsAnError() {
		UncheckedIOException failure = new UncheckedIOException(new IOException("down"));

		Throwable thrown = catchThrowable(() -> poller(() -> {
			throw failure;
		}).await());

		assertThat(thrown).isSameAs(failure);
		assertThat(this.observations).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("outcome", "error")
			.hasError(failure)
			.hasBeenStopped();
	}

	@Test
	void aScheduledPollIsObservedUntilItsFutureCompletes() {
		Observation caller = Observation.start("caller", this.observations);

		CompletableFuture<String> future;
		try (Observation.Scope scope = caller.openScope()) {
			future = poller(values("", "DONE")).awaitAsync(this.scheduler);
		}

		assertThat(this.observations).hasObservationWithNameEqualTo("resilience.poll").that().isNotStopped();
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("DONE");
		assertThat(this.observations).hasObservationWithNameEqualTo("resilience.poll")
			.that()
			.hasLowCardinalityKeyValue("outcome", "fulfilled")
			.hasHighCardinalityKeyValue("attempt", "2")
			.hasParentObservationEqualTo(caller)
			.hasBeenStopped();
	}

	@Test
	void aPollOfStagesThatIsCancelledIsObservedAsCancelled() {
		CompletableFuture<String> future = poller(values("")).awaitAsync(() -> CompletableFuture.completedFuture(""),
				this.scheduler);

		future.cancel(false);

		assertThat(this.observations).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("outcome", "cancelled")
			.hasHighCardinalityKeyValue("attempt", "1")
			.hasBeenStopped();
	}

	private Poller<String> poller(Supplier<String> values) {
		return Poller.builder(values, "DONE"::equals)
			.name("export")
			.maxAttempts(3)
			.delay(Duration.ofSeconds(1))
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.observations(ResilienceObservations.of(this.observations))
			.build();
	}

	private static Supplier<String> values(String... values) {
		Iterator<String> iterator = List.of(values).iterator();
		return iterator::next;
	}

}
