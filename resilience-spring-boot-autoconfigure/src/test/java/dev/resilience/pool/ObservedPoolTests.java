package dev.resilience.pool;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.observation.ResilienceObservations;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The observing decorator passes everything else on to the pool it observes, and calls straight
 * through when nothing is observed; cancelled and failed checkouts and operations have their outcome.
 */
class ObservedPoolTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final CountingFactory factory = new CountingFactory();

	private final ConnectionPool<Integer> inner = ConnectionPool.builder("p", (ConnectionFactory<Integer>) this.factory)
		.settings(ConnectionPoolSettings.builder().maxSize(1).build())
		.build();

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	@AfterEach
	void close() {
		this.inner.close();
	}

	@Test
	void withNothingObservedEveryCallIsThePools() throws Exception {
		ObservedPool<Integer> pool = new ObservedPool<>(this.inner, ResilienceObservations.none());
		assertThat(pool.getName()).isEqualTo("p");
		assertThat(pool.getSettings()).isSameAs(this.inner.getSettings());
		assertThat(pool.toString()).isEqualTo(this.inner.toString());
		Integer sum = pool.withConnection(TIMEOUT, (connection) -> connection + pool.current());
		assertThat(sum).isEqualTo(2);
		Integer next = pool
			.withConnectionAsync(TIMEOUT, (connection) -> CompletableFuture.completedFuture(connection + 1))
			.get();
		assertThat(next).isEqualTo(2);
		ConnectionLease<Integer> lease = pool.checkoutAsync(TIMEOUT).get();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 1, 0, 0, 0));
		lease.release(null);
		ConnectionPoolSettings larger = ConnectionPoolSettings.builder().maxSize(3).build();
		pool.updateSettings(larger);
		assertThat(this.inner.getSettings()).isSameAs(larger);
		pool.close();
		assertThatIllegalStateException().isThrownBy(() -> this.inner.withConnection(TIMEOUT, (connection) -> 1))
			.withMessage("Pool 'p' is closed");
	}

	@Test
	void aCheckoutCancelledWhileItWaitsIsObservedAsCancelled() throws Exception {
		ObservedPool<Integer> pool = new ObservedPool<>(this.inner, ResilienceObservations.of(this.observations));
		ConnectionLease<Integer> held = this.inner.checkoutAsync(TIMEOUT).get();
		CompletableFuture<ConnectionLease<Integer>> waiting = pool.checkoutAsync(TIMEOUT);
		waiting.cancel(false);
		held.release(null);
		assertThat(this.observations).hasSingleObservationThat()
			.hasNameEqualTo("resilience.pool.checkout")
			.hasLowCardinalityKeyValue("outcome", "cancelled")
			.hasBeenStopped();
	}

	@Test
	void aCheckoutTheFactoryFailedIsObservedAsAnError() {
		this.factory.onCreate(() -> {
			throw new IllegalStateException("down");
		});
		ObservedPool<Integer> pool = new ObservedPool<>(this.inner, ResilienceObservations.of(this.observations));
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(TIMEOUT);
		await().until(checkout::isDone);
		assertThat(checkout).isCompletedExceptionally();
		assertThat(this.observations).hasSingleObservationThat()
			.hasNameEqualTo("resilience.pool.checkout")
			.hasLowCardinalityKeyValue("outcome", "error")
			.hasBeenStopped();
	}

	@Test
	void anOperationCancelledWhileItsStageRunsIsObservedAsCancelled() {
		ObservedPool<Integer> pool = new ObservedPool<>(this.inner, ResilienceObservations.of(this.observations));
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<Boolean> started = new CompletableFuture<>();
		CompletableFuture<String> result = pool.withConnectionAsync(TIMEOUT, (connection) -> {
			started.complete(true);
			return work;
		});
		await().until(started::isDone);
		result.cancel(true);
		assertThat(work).isCancelled();
		assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("resilience.pool.operation", 1)
			.hasObservationWithNameEqualTo("resilience.pool.operation")
			.that()
			.hasLowCardinalityKeyValue("outcome", "cancelled")
			.hasBeenStopped();
	}

}
