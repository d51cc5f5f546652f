package dev.resilience.pool;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Arguments of {@link ConnectionPool}'s builder and of {@code withConnection} are checked where
 * they are given, naming the one that is missing, rather than failing later in a call, on another
 * thread, or after a connection was made for nothing.
 */
class ConnectionPoolArgumentTests {

	@Test
	void theBuilderRejectsNullArgumentsAtOnceNamingThem() {
		CountingFactory factory = new CountingFactory();
		assertThatNullPointerException().isThrownBy(() -> ConnectionPool.builder(null, factory)).withMessage("name");
		assertThatNullPointerException().isThrownBy(() -> ConnectionPool.<Integer>builder("p", null))
			.withMessage("factory");
		assertThatNullPointerException().isThrownBy(() -> ConnectionPool.permits(null)).withMessage("name");
		ConnectionPool.Builder<Integer> builder = ConnectionPool.builder("p", factory);
		assertThatNullPointerException().isThrownBy(() -> builder.settings(null)).withMessage("settings");
		assertThatNullPointerException().isThrownBy(() -> builder.ticker(null)).withMessage("ticker");
		assertThatNullPointerException().isThrownBy(() -> builder.listener(null)).withMessage("listener");
		assertThatNullPointerException().isThrownBy(() -> builder.contextSnapshots(null))
			.withMessage("contextSnapshots");
		assertThatNullPointerException().isThrownBy(() -> builder.scheduler(null)).withMessage("scheduler");
	}

	@Test
	void withConnectionRejectsANullCallbackBeforeMakingAConnection() {
		CountingFactory factory = new CountingFactory();
		try (ConnectionPool<Integer> pool = ConnectionPool.builder("p", factory).build()) {
			assertThatNullPointerException().isThrownBy(() -> pool.withConnection(Duration.ofSeconds(5), null))
				.withMessage("callback");
			assertThatNullPointerException().isThrownBy(() -> pool.withConnectionAsync(Duration.ofSeconds(5), null))
				.withMessage("callback");
			assertThatNullPointerException().isThrownBy(() -> pool.withConnection(null, (connection) -> connection))
				.withMessage("timeout");
			// No connection was made (nor checked out) for work that could never run.
			assertThat(factory.created).hasValue(0);
			assertThat(pool.getStats().active()).isZero();
		}
	}

	@Test
	void aTimeoutTooLongForNanosecondsMeansNoPracticalDeadline() throws Exception {
		// Duration.toNanos() throws beyond about 292 years, a "no limit" value users write; every
		// call then failed with ArithmeticException: long overflow.
		Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
		try (ConnectionPool<Integer> pool = ConnectionPool.builder("p", new CountingFactory())
			.settings(ConnectionPoolSettings.builder().timeout(forever).build())
			.build()) {
			String done = pool.withConnection(forever, (connection) -> "done");
			assertThat(done).isEqualTo("done");
			String byDefault = pool.withConnection((connection) -> "default");
			assertThat(byDefault).isEqualTo("default");
			CompletableFuture<String> async = pool.withConnectionAsync(forever,
					(connection) -> CompletableFuture.completedFuture("async"));
			assertThat(async.get(30, TimeUnit.SECONDS)).isEqualTo("async");
			ConnectionLease<Integer> lease = pool.checkoutAsync(forever).get(30, TimeUnit.SECONDS);
			lease.release();
		}
	}

}
