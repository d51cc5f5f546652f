package dev.resilience.pool;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests {@link ConnectionPool#updateSettings}: a larger pool lets in the callers waiting for a
 * connection, blocked or not, at once; a smaller one takes no connection away.
 */
class ConnectionPoolUpdateSettingsTests {

	@Test
	void aLargerPoolLetsABlockedCallerInAtOnce() throws Exception {
		try (ConnectionPool<Object> pool = ConnectionPool.permits("resized")
			.settings(ConnectionPoolSettings.builder().maxSize(1).build())
			.build()) {
			ConnectionLease<Object> held = pool.checkoutAsync(Duration.ofSeconds(60)).get(10, TimeUnit.SECONDS);
			CompletableFuture<String> blocked = CompletableFuture
				.supplyAsync(() -> pool.withConnection(Duration.ofSeconds(60), (connection) -> "ran"));
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (pool.getStats().pending() == 0 && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			assertThat(pool.getStats().pending()).isEqualTo(1);
			pool.updateSettings(ConnectionPoolSettings.builder().maxSize(2).build());
			assertThat(blocked.get(10, TimeUnit.SECONDS)).isEqualTo("ran");
			assertThat(pool.getStats().maxSize()).isEqualTo(2);
			held.release();
		}
	}

	@Test
	void aSmallerPoolTakesNoConnectionAwayAndHandsOutNoMoreUntilFewerAreOut() throws Exception {
		try (ConnectionPool<Object> pool = ConnectionPool.permits("shrunk")
			.settings(ConnectionPoolSettings.builder().maxSize(2).build())
			.build()) {
			ConnectionLease<Object> first = pool.checkoutAsync(Duration.ofSeconds(60)).get(10, TimeUnit.SECONDS);
			ConnectionLease<Object> second = pool.checkoutAsync(Duration.ofSeconds(60)).get(10, TimeUnit.SECONDS);
			pool.updateSettings(ConnectionPoolSettings.builder().maxSize(1).build());
			assertThat(pool.getStats().active()).isEqualTo(2);
			CompletableFuture<ConnectionLease<Object>> third = pool.checkoutAsync(Duration.ofSeconds(60));
			first.release();
			assertThatExceptionOfType(TimeoutException.class).isThrownBy(() -> third.get(300, TimeUnit.MILLISECONDS));
			assertThat(pool.getStats().active()).isEqualTo(1);
			second.release();
			third.get(10, TimeUnit.SECONDS).release();
		}
	}

}
