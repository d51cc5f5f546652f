package dev.resilience.pool;

import java.time.Duration;

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

}
