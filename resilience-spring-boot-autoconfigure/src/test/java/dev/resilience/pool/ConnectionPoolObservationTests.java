package dev.resilience.pool;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.observation.RecordingHandler;
import dev.resilience.observation.ResilienceObservations;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code resilience.pool.checkout} and {@code resilience.pool.operation} (docs/observability.md): each
 * pooled call's wait for a connection and its work, children of the caller's observation, the
 * work's own observations children of the operation, with the meters' tags and outcomes.
 */
class ConnectionPoolObservationTests {

	private static final Duration LONG = Duration.ofSeconds(30);

	private static final Duration SHORT = Duration.ofMillis(200);

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	private final ConnectionPool<Object> pool = ConnectionPool.permits("partner")
		.settings(ConnectionPoolSettings.builder().maxSize(1).build())
		.observations(ResilienceObservations.of(this.observations))
		.build();

	private final RecordingHandler handler = RecordingHandler.on(this.observations);

	private final Hang hang = new Hang();

	@AfterEach
	void close() {
		this.hang.release();
		this.pool.close();
	}

	@Test
	void aCallIsACheckoutThenAnOperationInWhichTheWorkRuns() {
		Observation caller = Observation.start("caller", this.observations);

		String result;
		try (Observation.Scope scope = caller.openScope()) {
			result = this.pool.withConnection(LONG,
					(connection) -> Observation.createNotStarted("work", this.observations).observe(() -> "done"));
		}
		caller.stop();

		assertThat(result).isEqualTo("done");
		assertThat(this.observations).hasNumberOfObservationsEqualTo(4)
			.hasObservationWithNameEqualTo("resilience.pool.checkout")
			.that()
			.hasContextualNameEqualTo("resilience.pool.checkout partner")
			.hasLowCardinalityKeyValue("pool", "partner")
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.hasParentObservationEqualTo(caller)
			.hasBeenStopped()
			.backToTestObservationRegistry()
			.hasObservationWithNameEqualTo("resilience.pool.operation")
			.that()
			.hasLowCardinalityKeyValue("pool", "partner")
			.hasLowCardinalityKeyValue("outcome", "success")
			.hasParentObservationEqualTo(caller)
			.doesNotHaveError()
			.hasBeenStopped()
			.backToTestObservationRegistry()
			.hasObservationWithNameEqualTo("work")
			.that()
			.hasParentObservationContextMatching((parent) -> "resilience.pool.operation".equals(parent.getName()));
	}

	@Test
	void workThatThrowsIsAnOperationWithTheError() {
		IOException failure = new IOException("down");

		Throwable thrown = catchThrowable(() -> this.pool.withConnection(LONG, (connection) -> {
			throw failure;
		}));

		assertThat(thrown).isSameAs(failure);
		assertThat(this.observations).hasObservationWithNameEqualTo("resilience.pool.operation")
			.that()
			.hasLowCardinalityKeyValue("outcome", "error")
			.hasError(failure)
			.hasBeenStopped();
	}

	@Test
	void aCheckoutThatTimesOutIsObservedAndNoOperationFollows() {
		CompletableFuture<Object> holding = this.pool.withConnectionAsync(LONG, (connection) -> new CompletableFuture<>());
		awaitStarted("resilience.pool.operation");
		this.observations.clear();

		Throwable thrown = catchThrowable(() -> this.pool.withConnection(SHORT, (connection) -> "never"));

		assertThat(thrown).isInstanceOf(CheckoutTimeoutException.class);
		assertThat(this.observations).hasSingleObservationThat()
			.hasNameEqualTo("resilience.pool.checkout")
			.hasLowCardinalityKeyValue("outcome", "timeout")
			.hasError(thrown)
			.hasBeenStopped();
		holding.cancel(false);
	}

	@Test
	void workPastTheDeadlineIsAnOperationThatTimedOut() {
		Throwable thrown = catchThrowable(() -> this.pool.withConnection(SHORT, (connection) -> this.hang.hang()));

		assertThat(thrown).isInstanceOf(OperationTimeoutException.class);
		assertThat(this.observations).hasObservationWithNameEqualTo("resilience.pool.operation")
			.that()
			.hasLowCardinalityKeyValue("outcome", "timeout")
			.hasError(thrown)
			.hasBeenStopped();
	}

	@Test
	void anAsyncOperationLastsUntilItsStageCompletesAndHasTheCallerAsParent() {
		CompletableFuture<String> work = new CompletableFuture<>();
		Observation caller = Observation.start("caller", this.observations);

		CompletableFuture<String> result;
		try (Observation.Scope scope = caller.openScope()) {
			result = this.pool.withConnectionAsync(LONG, (connection) -> work);
		}
		caller.stop();
		// The work starts on the scheduler: wait until the operation has begun.
		awaitStarted("resilience.pool.operation");

		assertThat(this.observations).hasObservationWithNameEqualTo("resilience.pool.operation")
			.that()
			.hasBeenStarted()
			.isNotStopped();
		work.complete("done");
		assertThat(result.join()).isEqualTo("done");
		// The operation ends in a dependent of the caller's future, which may run just after the
		// caller was woken: the pool's scheduler passes the outcome on once the connection is back.
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.observations).hasObservationWithNameEqualTo("resilience.pool.operation")
				.that()
				.hasBeenStopped());
		assertThat(this.observations).hasObservationWithNameEqualTo("resilience.pool.operation")
			.that()
			.hasLowCardinalityKeyValue("outcome", "success")
			.hasParentObservationEqualTo(caller)
			.hasBeenStopped();
	}

	@Test
	void aLeaseHasItsCheckoutObserved() {
		ConnectionLease<Object> lease = this.pool.checkoutAsync(LONG).join();
		lease.release();

		// The checkout ends in a dependent of the caller's future, which may run just after join().
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.observations).hasSingleObservationThat().hasBeenStopped());
		assertThat(this.observations).hasSingleObservationThat()
			.hasNameEqualTo("resilience.pool.checkout")
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.hasBeenStopped();
	}

	private void awaitStarted(String name) {
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> this.handler.started().contains(name));
	}

}
