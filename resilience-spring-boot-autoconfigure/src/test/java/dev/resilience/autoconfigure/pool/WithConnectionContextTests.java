package dev.resilience.autoconfigure.pool;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.ConnectionPoolStats;
import dev.resilience.pool.WithConnection;
import dev.resilience.retry.Jitter;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The connection of a {@code @WithConnection} call travels with the call: into the later attempts
 * of a {@code @Retryable} inside it, which run on the scheduler, into the work of another pool it
 * calls, and no further than the call.
 */
class WithConnectionContextTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RetryAutoConfiguration.class, ConnectionPoolAutoConfiguration.class))
		.withBean(Outer.class)
		.withBean(Inner.class)
		.withPropertyValues("resilience.pools.a.max-size=1", "resilience.pools.b.max-size=1");

	@Test
	void laterRetryAttemptsInsideTheConnectionSeeIt() {
		// Lower runs outside: the connection is taken once, around every attempt.
		this.contextRunner.withPropertyValues("resilience.aspect-order.connection=100").run((context) -> {
			Outer outer = context.getBean(Outer.class);
			assertThat(outer.retriedInside().get(10, TimeUnit.SECONDS)).isEqualTo("ok after 3");
			assertThat(outer.seen()).hasSize(3).doesNotHaveDuplicates().allMatch(String.class::isInstance);
			assertThat(outer.connections()).hasSize(3);
			assertThat(outer.connections().get(1)).isSameAs(outer.connections().get(0));
			assertThat(outer.connections().get(2)).isSameAs(outer.connections().get(0));
			await().untilAsserted(() -> assertThat(pool(context, "a").getStats())
				.isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
		});
	}

	@Test
	void aPoolCalledFromAnotherPoolsWorkSeesBothConnections() {
		this.contextRunner.run((context) -> {
			Outer outer = context.getBean(Outer.class);
			List<Object> seen = outer.callsInner();
			assertThat(seen).hasSize(3);
			assertThat(seen.get(0)).isNotNull().isNotSameAs(seen.get(1));
			assertThat(seen.get(2)).isEqualTo(List.of(seen.get(0), seen.get(1)));
		});
	}

	@Test
	void aContinuationThatOutlivesTheCallFindsItsConnectionGone() {
		this.contextRunner.run((context) -> {
			Outer outer = context.getBean(Outer.class);
			assertThat(outer.leavesContinuation().get(10, TimeUnit.SECONDS)).isNotNull();
			await().untilAsserted(() -> assertThat(pool(context, "a").getStats())
				.isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
			AtomicReference<Object> seen = new AtomicReference<>();
			CompletableFuture.runAsync(() -> seen.set(currentOrFailure(pool(context, "a")))).thenRun(() -> {
			}).get(10, TimeUnit.SECONDS);
			assertThat(seen.get()).isInstanceOf(IllegalStateException.class);
			CompletableFuture.runAsync(outer.continuation().get()).get(10, TimeUnit.SECONDS);
			assertThat(outer.seenLater().get()).isInstanceOf(IllegalStateException.class)
				.hasToString("java.lang.IllegalStateException: The call that held a connection of pool 'a' here has "
						+ "ended, and its connection went back to the pool; current() works while the call runs, not "
						+ "in a continuation that outlives it");
		});
	}

	@SuppressWarnings("unchecked")
	static ConnectionPool<Object> pool(ApplicationContext context, String name) {
		return context.getBean(name, ConnectionPool.class);
	}

	static Object currentOrFailure(ConnectionPool<?> pool) {
		try {
			return pool.current();
		}
		catch (IllegalStateException ex) {
			return ex;
		}
	}

	static class Outer {

		final List<Object> seen = new CopyOnWriteArrayList<>();

		final List<Object> connections = new CopyOnWriteArrayList<>();

		final AtomicReference<Runnable> continuation = new AtomicReference<>();

		final AtomicReference<Object> seenLater = new AtomicReference<>();

		private final AtomicInteger calls = new AtomicInteger();

		// Read through methods: the test holds the proxy, whose own fields are not the target's.
		public List<Object> seen() {
			return this.seen;
		}

		public List<Object> connections() {
			return this.connections;
		}

		public AtomicReference<Runnable> continuation() {
			return this.continuation;
		}

		public AtomicReference<Object> seenLater() {
			return this.seenLater;
		}

		private final ApplicationContext context;

		Outer(ApplicationContext context) {
			this.context = context;
		}

		@WithConnection(pool = "a", timeout = "10s")
		@Retryable(maxRetries = 2, delay = "5ms", jitter = Jitter.NONE)
		public CompletableFuture<String> retriedInside() {
			int call = this.calls.incrementAndGet();
			Object current = currentOrFailure(pool(this.context, "a"));
			this.connections.add(current);
			this.seen.add(Thread.currentThread().getName() + " " + call);
			if (current instanceof IllegalStateException ex) {
				return CompletableFuture.failedFuture(ex);
			}
			return (call < 3) ? CompletableFuture.failedFuture(new IOException("down " + call))
					: CompletableFuture.completedFuture("ok after " + call);
		}

		@WithConnection(pool = "a", timeout = "10s")
		public List<Object> callsInner() {
			Object a = pool(this.context, "a").current();
			return List.of(a, this.context.getBean(Inner.class).both().get(1),
					this.context.getBean(Inner.class).both());
		}

		@WithConnection(pool = "a", timeout = "10s")
		public CompletableFuture<Object> leavesContinuation() {
			ConnectionPool<Object> a = pool(this.context, "a");
			this.continuation.set(this.context.getBean(ContextSnapshotFactory.class)
				.captureAll()
				.wrap(() -> this.seenLater.set(currentOrFailure(a))));
			return CompletableFuture.completedFuture(a.current());
		}

	}

	static class Inner {

		private final ApplicationContext context;

		Inner(ApplicationContext context) {
			this.context = context;
		}

		@WithConnection(pool = "b", timeout = "10s")
		public List<Object> both() {
			return List.of(pool(this.context, "a").current(), pool(this.context, "b").current());
		}

	}

}
