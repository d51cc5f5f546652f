package dev.resilience.ratelimit.store;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.Test;

import dev.resilience.Ticker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The asynchronous driver's rarer turns, each of which must still end the call and give back
 * what it holds: a cancellation seen when a running step hands over or ends, a scheduler that
 * refuses the wait or the continuation, a store that fails or decides nothing, a give-back that
 * fails, and a caller who completes the future itself.
 */
class AsyncAcquisitionTests extends AsyncFixture {

	/** The call under test, for stores that cancel it while they decide. */
	private final AtomicReference<CompletableFuture<Permit>> call = new AtomicReference<>();

	@Test
	void aCancellationSeenWhenARunningStepHandsOverToAWaitGivesBackAndSchedulesNothing() {
		AtomicReference<Runnable> decide = new AtomicReference<>();
		RateLimiterRegistry registry = registry()
			.store("remote", (name, settings, ticker) -> deferred(new InMemoryRateLimitStore(name, settings, ticker), decide))
			.store("cancelling", this::cancelling)
			.limiter("per-user", RateLimiterSettings.builder().store("remote").window(1, Duration.ofSeconds(4)).build())
			.limiter("global", RateLimiterSettings.builder().store("cancelling").window(100, Duration.ofSeconds(1)).build())
			.build();
		RateLimiter perUser = registry.get("per-user");
		RateLimiter global = registry.get("global");
		perUser.acquire("x", 1, Duration.ZERO);
		this.decisions.clear();
		Object perUserBefore = state(perUser, "x");
		Object globalBefore = state(global, "");
		this.call.set(registry.acquireAllAsync(List.of(new RateLimitRequest(perUser, "x", 1, Duration.ofSeconds(5)),
				new RateLimitRequest(global, "", 1, Duration.ofSeconds(5))), this.scheduler));

		// per-user's slot at 4 s arrives; global then admits at once, but the caller cancels meanwhile
		decide.get().run();
		this.scheduler.runNext();

		assertThat(this.call.get()).isCancelled();
		// the wait for 4 s that came next was never scheduled, and both shares are back
		assertThat(this.scheduler.pending().size()).isZero();
		assertThat(this.scheduler.delays()).containsExactly(Duration.ZERO);
		assertThat(state(perUser, "x")).isEqualTo(perUserBefore);
		assertThat(state(global, "")).isEqualTo(globalBefore);
		assertThat(this.decisions).isEmpty();
	}

	@Test
	void aCancellationSeenWhenARunningStepRejectsTellsNobody() {
		AtomicReference<Runnable> decide = new AtomicReference<>();
		RateLimiterRegistry registry = registry()
			.store("remote", (name, settings, ticker) -> deferred(new InMemoryRateLimitStore(name, settings, ticker), decide))
			.store("cancelling", this::cancelling)
			.limiter("per-user", RateLimiterSettings.builder().store("remote").window(10, Duration.ofSeconds(1)).build())
			.limiter("global", RateLimiterSettings.builder().store("cancelling").window(1, Duration.ofMinutes(1)).build())
			.build();
		RateLimiter perUser = registry.get("per-user");
		RateLimiter global = registry.get("global");
		global.acquire("", 1, Duration.ZERO);
		this.decisions.clear();
		Object perUserBefore = state(perUser, "x");
		this.call.set(registry.acquireAllAsync(List.of(new RateLimitRequest(perUser, "x", 1, Duration.ZERO),
				new RateLimitRequest(global, "", 1, Duration.ZERO)), this.scheduler));

		decide.get().run();
		this.scheduler.runNext();

		assertThat(this.call.get()).isCancelled();
		// global rejected the call after the caller cancelled: no listener hears of that rejection
		assertThat(this.decisions).isEmpty();
		assertThat(state(perUser, "x")).isEqualTo(perUserBefore);
	}

	@Test
	void aSchedulerThatRefusesTheWaitFailsTheCallAndGivesBackItsSlot() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		limiter.acquire("k", 1, Duration.ZERO);
		this.decisions.clear();
		Object before = state(limiter, "k");
		this.scheduler.shutdown();

		CompletableFuture<Permit> refused = limiter.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler);

		assertThat(failure(refused)).isInstanceOf(RejectedExecutionException.class);
		assertThat(state(limiter, "k")).isEqualTo(before);
		assertThat(this.decisions).isEmpty();
	}

	@Test
	void aDecisionArrivingAfterTheSchedulerShutDownGoesOnWhereItArrives() {
		AtomicReference<Runnable> decide = new AtomicReference<>();
		RateLimiter limiter = registry()
			.store("remote", (name, settings, ticker) -> deferred(new InMemoryRateLimitStore(name, settings, ticker), decide))
			.limiter("api", RateLimiterSettings.builder().store("remote").window(10, Duration.ofSeconds(1)).build())
			.build()
			.get("api");
		CompletableFuture<Permit> deciding = limiter.acquireAsync("k", 1, Duration.ZERO, this.scheduler);
		this.scheduler.shutdown();

		decide.get().run();

		// nothing else would ever run it: the continuation ran on the store's thread (here: this one)
		assertThat(deciding).isCompleted();
		assertThat(deciding.getNow(null).getDecisions()).singleElement()
			.satisfies((decision) -> assertThat(decision.getRemaining()).isEqualTo(9));
		assertThat(this.decisions).hasSize(1);
	}

	@Test
	void aGiveBackThatFailsWhenAnotherLimiterFailedIsSuppressedInTheFailure() {
		IllegalStateException cannotGiveBack = new IllegalStateException("cannot give back");
		RateLimiterRegistry registry = registry()
			.store("sticky", (name, settings, ticker) -> new ForwardingStore("sticky",
					new InMemoryRateLimitStore(name, settings, ticker)) {

				@Override
				public Reservation reserve(String key, long cost, long maxWaitNanos) {
					return new FailingGiveBack(super.reserve(key, cost, maxWaitNanos), cannotGiveBack);
				}

			})
			.store("broken", (name, settings, ticker) -> new ForwardingStore("broken",
					new InMemoryRateLimitStore(name, settings, ticker)) {

				@Override
				public Reservation reserve(String key, long cost, long maxWaitNanos) {
					throw new IllegalStateException("store down");
				}

			})
			.limiter("a", RateLimiterSettings.builder().store("sticky").window(10, Duration.ofSeconds(1)).build())
			.limiter("b", RateLimiterSettings.builder().store("broken").window(10, Duration.ofSeconds(1)).build())
			.build();

		CompletableFuture<Permit> failed = registry.acquireAllAsync(
				List.of(new RateLimitRequest(registry.get("a"), "k", 1, Duration.ZERO),
						new RateLimitRequest(registry.get("b"), "k", 1, Duration.ZERO)),
				this.scheduler);

		assertThat(failure(failed)).hasMessage("store down").hasSuppressedException(cannotGiveBack);
	}

	@Test
	void aCallerWhoCompletesTheFutureWhileTheCallWaitsGetsTheSlotGivenBack() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		limiter.acquire("k", 1, Duration.ZERO);
		this.decisions.clear();
		Object before = state(limiter, "k");
		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler);
		assertThat(state(limiter, "k")).isNotEqualTo(before);

		// completed normally, not cancelled: the call learns of it when its wait ends
		waiting.complete(null);
		this.scheduler.runAll();

		// at 1 s the earlier call's entry has left, and the slot the waiting call held is back too
		assertThat(this.ticker.read()).isEqualTo(Duration.ofSeconds(1).toNanos());
		assertThat(limiter.inspect("k").getRemaining()).isOne();
		assertThat(this.decisions).isEmpty();
		assertThat(waiting.getNow(null)).isNull();
	}

	@Test
	void aRemoteDecisionThatFailsFailsTheCallWithTheStoresOwnException() {
		AtomicReference<CompletableFuture<Reservation>> pending = new AtomicReference<>();
		RateLimiter limiter = registry().store("remote", (name, settings, ticker) -> new ForwardingStore("remote",
				new InMemoryRateLimitStore(name, settings, ticker)) {

			@Override
			public CompletableFuture<Reservation> reserveAsync(String key, long cost, long maxWaitNanos) {
				pending.set(new CompletableFuture<>());
				return pending.get();
			}

		}).limiter("api", RateLimiterSettings.builder().store("remote").window(10, Duration.ofSeconds(1)).build())
			.build()
			.get("api");
		IllegalStateException down = new IllegalStateException("store down", new IOException("connection reset"));
		CompletableFuture<Permit> deciding = limiter.acquireAsync("k", 1, Duration.ZERO, this.scheduler);

		pending.get().completeExceptionally(down);
		this.scheduler.runAll();

		// not its cause, though it has one
		assertThat(thrown(deciding)).isSameAs(down);
	}

	@Test
	void aDecisionThatFailedAtOnceFailsTheCallWithTheStoresOwnException() {
		IllegalStateException down = new IllegalStateException("store down");
		RateLimiter limiter = failingStore(CompletableFuture.failedFuture(down));

		CompletableFuture<Permit> failed = limiter.acquireAsync("k", 1, Duration.ZERO, this.scheduler);

		// completed with the store's exception itself, not wrapped in a CompletionException
		assertThat(thrown(failed)).isSameAs(down);
		assertThat(this.scheduler.pending().size()).isZero();
	}

	@Test
	void aStoreThatDecidesNothingFailsTheCall() {
		RateLimiter limiter = failingStore(CompletableFuture.completedFuture(null));

		CompletableFuture<Permit> failed = limiter.acquireAsync("k", 1, Duration.ZERO, this.scheduler);

		assertThat(failure(failed)).isInstanceOf(NullPointerException.class);
	}

	@Test
	void anErrorThrownByTheStoreCompletesTheFutureInsteadOfEscaping() {
		AssertionError bug = new AssertionError("store bug");
		RateLimiter limiter = registry().store("buggy", (name, settings, ticker) -> new ForwardingStore("buggy",
				new InMemoryRateLimitStore(name, settings, ticker)) {

			@Override
			public CompletableFuture<Reservation> reserveAsync(String key, long cost, long maxWaitNanos) {
				throw bug;
			}

		}).limiter("api", RateLimiterSettings.builder().store("buggy").window(10, Duration.ofSeconds(1)).build())
			.build()
			.get("api");

		CompletableFuture<Permit> failed = limiter.acquireAsync("k", 1, Duration.ZERO, this.scheduler);

		assertThat(thrown(failed)).isSameAs(bug);
	}

	@Test
	void aGiveBackThatFailsLaterIsLoggedAndOneThatSucceedsIsNot() {
		IllegalStateException cannotGiveBack = new IllegalStateException("cannot give back");
		RateLimiter limiter = registry().store("sticky", (name, settings, ticker) -> new ForwardingStore("sticky",
				new InMemoryRateLimitStore(name, settings, ticker)) {

			@Override
			public Reservation reserve(String key, long cost, long maxWaitNanos) {
				Reservation reservation = super.reserve(key, cost, maxWaitNanos);
				return key.equals("lost") ? new FailingGiveBack(reservation, null, cannotGiveBack) : reservation;
			}

		}).limiter("api", RateLimiterSettings.builder().store("sticky").window(1, Duration.ofSeconds(1)).build())
			.build()
			.get("api");
		limiter.acquire("kept", 1, Duration.ZERO);
		limiter.acquire("lost", 1, Duration.ZERO);
		List<LogRecord> records = new CopyOnWriteArrayList<>();
		Handler handler = new Handler() {

			@Override
			public void publish(LogRecord logRecord) {
				records.add(logRecord);
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		};
		Logger logger = Logger.getLogger(AsyncAcquisition.class.getName());
		logger.addHandler(handler);
		try {
			limiter.acquireAsync("kept", 1, Duration.ofSeconds(5), this.scheduler).cancel(true);
			assertThat(records).isEmpty();

			limiter.acquireAsync("lost", 1, Duration.ofSeconds(5), this.scheduler).cancel(true);

			assertThat(records).singleElement().satisfies((logRecord) -> {
				assertThat(logRecord.getLevel()).isEqualTo(Level.WARNING);
				assertThat(logRecord.getMessage()).startsWith("Could not give back ");
				assertThat(logRecord.getThrown()).isSameAs(cannotGiveBack);
			});
		}
		finally {
			logger.removeHandler(handler);
		}
	}

	private RateLimiter failingStore(CompletableFuture<Reservation> decided) {
		return registry().store("failing", (name, settings, ticker) -> new ForwardingStore("failing",
				new InMemoryRateLimitStore(name, settings, ticker)) {

			@Override
			public CompletableFuture<Reservation> reserveAsync(String key, long cost, long maxWaitNanos) {
				return decided;
			}

		}).limiter("api", RateLimiterSettings.builder().store("failing").window(10, Duration.ofSeconds(1)).build())
			.build()
			.get("api");
	}

	/** An in-memory store whose decisions cancel {@link #call} first, as a caller giving up meanwhile. */
	private RateLimitStore cancelling(String name, RateLimiterSettings settings, Ticker ticker) {
		return new ForwardingStore("cancelling", new InMemoryRateLimitStore(name, settings, ticker)) {

			@Override
			public Reservation reserve(String key, long cost, long maxWaitNanos) {
				CompletableFuture<Permit> running = AsyncAcquisitionTests.this.call.get();
				if (running != null) {
					running.cancel(true);
				}
				return super.reserve(key, cost, maxWaitNanos);
			}

		};
	}

	/** The very exception a future was completed with, unwrapped by nobody. */
	private static Throwable thrown(CompletableFuture<?> future) {
		assertThat(future).isCompletedExceptionally();
		return future.handle((value, ex) -> ex).getNow(null);
	}

	/**
	 * A reservation whose asynchronous give-back fails: by throwing at once, or, with
	 * {@code thrown} {@code null}, through its future.
	 */
	private static final class FailingGiveBack implements Reservation {

		private final Reservation delegate;

		private final RuntimeException thrown;

		private final RuntimeException failed;

		FailingGiveBack(Reservation delegate, RuntimeException thrown) {
			this(delegate, thrown, null);
		}

		FailingGiveBack(Reservation delegate, RuntimeException thrown, RuntimeException failed) {
			this.delegate = delegate;
			this.thrown = thrown;
			this.failed = failed;
		}

		@Override
		public RateLimitDecision getDecision() {
			return this.delegate.getDecision();
		}

		@Override
		public void cancel() {
			this.delegate.cancel();
		}

		@Override
		public void release() {
			this.delegate.release();
		}

		@Override
		public CompletableFuture<Void> cancelAsync() {
			if (this.thrown != null) {
				throw this.thrown;
			}
			this.delegate.cancel();
			return CompletableFuture.failedFuture(this.failed);
		}

	}

}
