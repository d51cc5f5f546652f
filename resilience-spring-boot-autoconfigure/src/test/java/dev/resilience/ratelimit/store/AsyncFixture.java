package dev.resilience.ratelimit.store;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the asynchronous acquisition tests share: a manual clock and a scheduler on it, limiters
 * whose waits advance the clock and whose every decision is recorded, and ways to read a future
 * and a key's state without waiting.
 */
abstract class AsyncFixture {

	/** The clock of every limiter built here and of {@link #scheduler}. */
	final ManualTicker ticker = new ManualTicker();

	/** Runs scheduled waits and continuations when the test says so. */
	final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	/** Every decision of the limiters built here, in order. */
	final List<RateLimitDecision> decisions = new CopyOnWriteArrayList<>();

	/** A registry builder on {@link #ticker} that records each decision in {@link #decisions}. */
	StoreRateLimiterRegistry.Builder registry() {
		return StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.listener((limiter, decision) -> this.decisions.add(decision));
	}

	/** A limiter named {@code api} with the given settings, from {@link #registry()}. */
	RateLimiter limiter(RateLimiterSettings settings) {
		return registry().limiter("api", settings).build().get("api");
	}

	/** Everything {@code inspect} tells of a key, for comparing before and after. */
	static Object state(RateLimiter limiter, String key) {
		RateLimitDecision state = limiter.inspect(key);
		return List.of(state.isPermitted(), state.getRemaining(), state.getRetryAfter(), state.getInFlight(),
				state.getQuotas());
	}

	/** The exception a future completed with, without waiting: it must be done. */
	static Throwable failure(CompletableFuture<?> future) {
		assertThat(future).isCompletedExceptionally();
		try {
			future.getNow(null);
		}
		catch (CompletionException ex) {
			return ex.getCause();
		}
		catch (CancellationException ex) {
			return ex;
		}
		throw new AssertionError("not failed: " + future);
	}

	/** A store whose decisions wait until the test runs the last one asked for, as a remote store's do. */
	static RateLimitStore deferred(RateLimitStore delegate, AtomicReference<Runnable> decide) {
		return new ForwardingStore("remote", delegate) {

			@Override
			public CompletableFuture<Reservation> reserveAsync(String key, long cost, long maxWaitNanos) {
				CompletableFuture<Reservation> decided = new CompletableFuture<>();
				decide.set(() -> decided.complete(reserve(key, cost, maxWaitNanos)));
				return decided;
			}

		};
	}

}
