package dev.resilience.autoconfigure.pool;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.ConnectionPoolSettings;
import dev.resilience.pool.ConnectionPoolStats;
import dev.resilience.pool.OperationTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/** Tests for {@link WithConnectionMethod}'s asynchronous form. */
class WithConnectionMethodTests {

	private final ConnectionPool<Object> pool = ConnectionPool.permits("p")
		.settings(ConnectionPoolSettings.builder().maxSize(1).build())
		.build();

	@AfterEach
	void close() {
		this.pool.close();
	}

	@Test
	void invokeAsyncReturnsAtOnceAndHoldsTheConnectionUntilTheStageCompletes() throws Exception {
		WithConnectionMethod method = new WithConnectionMethod(this.pool, Duration.ofSeconds(30));
		assertThat(method.pool()).isSameAs(this.pool);
		assertThat(method.timeout()).isEqualTo(Duration.ofSeconds(30));
		CompletableFuture<String> work = new CompletableFuture<>();
		AtomicReference<Object> current = new AtomicReference<>();
		CompletableFuture<Object> result = method.invokeAsync(() -> {
			current.set(this.pool.current());
			return work;
		});
		await().untilAsserted(() -> assertThat(current.get()).isNotNull());
		assertThat(result).isNotDone();
		assertThat(this.pool.getStats().active()).isOne();
		work.complete("done");
		assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		await().untilAsserted(() -> assertThat(this.pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
	}

	@Test
	void invokeAsyncFailsWithOperationTimeoutAtTheDeadline() {
		// Long enough that a loaded machine still checks out in time, so the stage is what times out.
		WithConnectionMethod method = new WithConnectionMethod(this.pool, Duration.ofSeconds(1));
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<Object> result = method.invokeAsync(() -> work);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> result.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(OperationTimeoutException.class);
		assertThat(work).isCancelled();
		await().untilAsserted(() -> assertThat(this.pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
	}

}
