package dev.resilience.pool;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.context.ThreadLocalAccessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A pool's held connection travels with the call's context ({@link HeldConnectionAccessor}): into
 * another pool's work, into a continuation the work hands to another thread, and no further than
 * the call: a continuation that outlives it finds the connection gone.
 */
class ConnectionPoolContextTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final ContextSnapshotFactory snapshots = ContextSnapshotFactory.builder()
		.contextRegistry(new ContextRegistry().registerThreadLocalAccessor(new HeldConnectionAccessor()))
		.clearMissing(true)
		.build();

	private final ExecutorService elsewhere = Executors.newSingleThreadExecutor();

	private final List<ConnectionPool<?>> pools = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() throws InterruptedException {
		this.pools.forEach(ConnectionPool::close);
		this.elsewhere.shutdownNow();
		assertThat(this.elsewhere.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void theAccessorIsInTheGlobalRegistry() {
		assertThat(ContextRegistry.getInstance().getThreadLocalAccessors()).map(ThreadLocalAccessor::key)
			.contains(HeldConnectionAccessor.KEY);
	}

	@Test
	void aPoolCalledFromAnotherPoolsWorkSeesBothConnections() {
		ConnectionPool<String> outer = pool("outer");
		ConnectionPool<String> inner = pool("inner");
		List<String> seen = outer.withConnection(TIMEOUT, (outerConnection) -> inner.withConnection(TIMEOUT,
				(innerConnection) -> List.of(outer.current(), inner.current(), Thread.currentThread().getName())));
		assertThat(seen.subList(0, 2)).containsExactly("outer-1", "inner-1");
		assertThat(seen.get(2)).contains("inner");
		assertThat(outer.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(inner.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
	}

	@Test
	void aPoolCalledFromAnotherPoolsWorkSeesBothConnectionsWhateverTheSnapshotFactory() {
		// A factory that knows nothing of the held connections: the pools carry them themselves.
		ConnectionPool<String> outer = track(ConnectionPool.builder("outer", new Named("outer"))
			.contextSnapshots(ContextSnapshotFactory.builder().contextRegistry(new ContextRegistry()).build())
			.build());
		ConnectionPool<String> inner = track(ConnectionPool.builder("inner", new Named("inner"))
			.contextSnapshots(ContextSnapshotFactory.builder().contextRegistry(new ContextRegistry()).build())
			.build());
		List<String> seen = outer.withConnection(TIMEOUT,
				(outerConnection) -> inner.withConnection(TIMEOUT, (innerConnection) -> List.of(outer.current(),
						inner.current())));
		assertThat(seen).containsExactly("outer-1", "inner-1");
	}

	@Test
	void aNestedPoolsAsynchronousWorkSeesTheOuterConnectionToo() throws Exception {
		ConnectionPool<String> outer = pool("outer");
		ConnectionPool<String> inner = pool("inner");
		List<String> seen = outer.withConnection(TIMEOUT,
				(outerConnection) -> inner
					.withConnectionAsync(TIMEOUT,
							(innerConnection) -> CompletableFuture.completedFuture(List.of(outer.current(), inner.current())))
					.get(10, TimeUnit.SECONDS));
		assertThat(seen).containsExactly("outer-1", "inner-1");
	}

	@Test
	void aContinuationOnAnotherThreadSeesTheConnectionWhileTheCallRunsAndNotAfterIt() throws Exception {
		ConnectionPool<String> pool = pool("p");
		AtomicReference<Runnable> later = new AtomicReference<>();
		AtomicReference<Object> seenLater = new AtomicReference<>();
		String seenDuring = pool.withConnection(TIMEOUT, (connection) -> {
			ContextSnapshot context = this.snapshots.captureAll();
			later.set(context.wrap(() -> seenLater.set(currentOrFailure(pool))));
			Callable<String> current = pool::current;
			return this.elsewhere.submit(context.wrap(current)).get(10, TimeUnit.SECONDS);
		});
		assertThat(seenDuring).isEqualTo("p-1");
		// The call ended: its connection went back, and another call may hold it now.
		String next = pool.withConnection(TIMEOUT, (connection) -> connection);
		assertThat(next).isEqualTo("p-1");
		this.elsewhere.submit(later.get()).get(10, TimeUnit.SECONDS);
		assertThat(seenLater.get()).isInstanceOf(IllegalStateException.class)
			.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.THROWABLE)
			.hasMessageContaining("pool 'p'")
			.hasMessageContaining("has ended");
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
	}

	@Test
	void aContinuationOfALeaseThatOutlivesItFindsTheConnectionGone() throws Exception {
		ManualTicker ticker = new ManualTicker();
		ManualScheduler scheduler = new ManualScheduler(ticker);
		ConnectionPool<String> pool = track(ConnectionPool.builder("p", new Named("p"))
			.ticker(ticker)
			.scheduler(scheduler)
			.contextSnapshots(this.snapshots)
			.build());
		CompletableFuture<ConnectionLease<String>> checkout = pool.checkoutAsync(TIMEOUT);
		while (!checkout.isDone()) {
			scheduler.runDue();
			Thread.onSpinWait();
		}
		ConnectionLease<String> lease = checkout.get();
		Runnable usesCurrent = () -> {
			pool.current();
		};
		Runnable continuation = lease.callWithCurrent(() -> this.snapshots.captureAll().wrap(usesCurrent));
		// Still held: the continuation, run elsewhere, finds it.
		assertThat(this.elsewhere.submit(() -> {
			continuation.run();
			return "ran";
		}).get(10, TimeUnit.SECONDS)).isEqualTo("ran");
		lease.release();
		Runnable late = lease.callWithCurrent(() -> this.snapshots.captureAll().wrap(usesCurrent));
		assertThatIllegalStateException().isThrownBy(late::run).withMessageContaining("has ended");
		assertThatIllegalStateException().isThrownBy(continuation::run).withMessageContaining("has ended");
	}

	@Test
	void aCallInsideTheWorkOfTheSamePoolAfterItEndedTakesAConnectionOfItsOwn() throws Exception {
		ConnectionPool<String> pool = pool("p");
		AtomicReference<Runnable> later = new AtomicReference<>();
		AtomicReference<Object> seenLater = new AtomicReference<>();
		pool.withConnection(TIMEOUT, (connection) -> {
			later.set(this.snapshots.captureAll()
				.wrap(() -> seenLater.set(pool.withConnection(TIMEOUT, (again) -> again + " " + pool.current()))));
			return connection;
		});
		this.elsewhere.submit(later.get()).get(10, TimeUnit.SECONDS);
		assertThat(seenLater.get()).isEqualTo("p-1 p-1");
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
	}

	@Test
	void aLeaseUsedInsideAnotherLeavesTheOuterOneCurrentAfterItAndNothingAfterBoth() throws Exception {
		ConnectionPool<String> outer = pool("outer");
		ConnectionPool<String> inner = pool("inner");
		ConnectionLease<String> outerLease = outer.checkoutAsync(TIMEOUT).get(10, TimeUnit.SECONDS);
		ConnectionLease<String> innerLease = inner.checkoutAsync(TIMEOUT).get(10, TimeUnit.SECONDS);
		try {
			List<String> seen = outerLease.callWithCurrent(() -> {
				String during = innerLease.callWithCurrent(inner::current);
				return List.of(during, outer.current());
			});
			assertThat(seen).containsExactly("inner-1", "outer-1");
			assertThatIllegalStateException().isThrownBy(outer::current).withMessageContaining("is held here");
			assertThatIllegalStateException().isThrownBy(inner::current).withMessageContaining("is held here");
		}
		finally {
			innerLease.release();
			outerLease.release();
		}
	}

	@Test
	void aLeaseLeavesNothingHeldOnTheThreadWhateverTheSnapshotFactory() throws Exception {
		// A factory that knows nothing of the held connections restores nothing: the lease does.
		ConnectionPool<String> pool = track(ConnectionPool.builder("p", new Named("p"))
			.contextSnapshots(ContextSnapshotFactory.builder().contextRegistry(new ContextRegistry()).build())
			.build());
		ConnectionLease<String> lease = pool.checkoutAsync(TIMEOUT).get(10, TimeUnit.SECONDS);
		try {
			assertThat(lease.callWithCurrent(pool::current)).isEqualTo("p-1");
			assertThatIllegalStateException().isThrownBy(pool::current).withMessageContaining("is held here");
		}
		finally {
			lease.release();
		}
	}

	@Test
	void aSnapshotTakenOutsideAnyCallHidesTheConnectionWhileItRunsInsideOne() throws Exception {
		ConnectionPool<String> pool = pool("p");
		// captured on a thread of this test's own, which no call has used
		Callable<Object> outside = this.elsewhere
			.submit(() -> this.snapshots.captureAll().wrap(() -> currentOrFailure(pool)))
			.get(10, TimeUnit.SECONDS);
		List<Object> seen = pool.withConnection(TIMEOUT, (connection) -> List.of(outside.call(), pool.current()));
		assertThat(seen.get(0)).isInstanceOf(IllegalStateException.class)
			.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.THROWABLE)
			.hasMessageContaining("is held here");
		assertThat(seen.get(1)).isEqualTo("p-1");
	}

	private static Object currentOrFailure(ConnectionPool<?> pool) {
		try {
			return pool.current();
		}
		catch (IllegalStateException ex) {
			return ex;
		}
	}

	private ConnectionPool<String> pool(String name) {
		return track(ConnectionPool.builder(name, new Named(name))
			.settings(ConnectionPoolSettings.builder().maxSize(1).build())
			.contextSnapshots(this.snapshots)
			.build());
	}

	private <T> ConnectionPool<T> track(ConnectionPool<T> pool) {
		this.pools.add(pool);
		return pool;
	}

	/** Connections named after their pool, numbered. */
	private static final class Named implements ConnectionFactory<String> {

		private final String name;

		private int made;

		Named(String name) {
			this.name = name;
		}

		@Override
		public synchronized String create() {
			return this.name + "-" + ++this.made;
		}

	}

}
