package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.support.MethodExpression;
import dev.resilience.autoconfigure.support.Timeouts;
import dev.resilience.internal.ScheduledAttempts;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Throttle;
import dev.resilience.ratelimit.ThrottleSignal;

/**
 * The {@code @RateLimited} annotations of one method, read and checked: for each limiter, in the
 * order asked, the key expression, the cost and the longest wait. Immutable.
 */
final class RateLimitedMethod {

	private static final System.Logger logger = System.getLogger(RateLimitedMethod.class.getName());

	private final RateLimiterRegistry registry;

	private final List<Limit> limits;

	/**
	 * Whether an admitted call holds a concurrency permit until it ends: a limiter has
	 * {@code max-concurrent}. Read once: a limiter's settings may change at run time, but not
	 * whether it has {@code max-concurrent}.
	 */
	private final boolean holdsPermits;

	/** The names of the method's limiters: an admitted call runs marked with them ({@link AdmittedLimiters}). */
	private final Set<String> limiterNames;

	private final ThrottleReader throttles;

	RateLimitedMethod(RateLimiterRegistry registry, List<Limit> limits, ThrottleReader throttles) {
		this.registry = registry;
		this.limits = List.copyOf(limits);
		this.holdsPermits = limits.stream().anyMatch((limit) -> limit.limiter().getSettings().maxConcurrent() > 0);
		this.limiterNames = limits.stream().map((limit) -> limit.limiter().getName()).collect(Collectors.toUnmodifiableSet());
		this.throttles = throttles;
	}

	/**
	 * Returns the method's limits, in the order asked.
	 * @return the limits
	 */
	List<Limit> limits() {
		return this.limits;
	}

	/**
	 * Returns the names of the method's limiters.
	 * @return the names
	 */
	Set<String> limiterNames() {
		return this.limiterNames;
	}

	/**
	 * Whether a limiter of the method reads a failed call now: one that pauses on throttle signals,
	 * or whose {@code max-concurrent} is adaptive and learns from drops. Asked at each call's end
	 * (for a call that does not block, when it was admitted), as both may be turned on or off at
	 * run time.
	 * @return whether a failed call's exception is worth reading
	 */
	boolean watchesFailures() {
		for (Limit limit : this.limits) {
			RateLimiterSettings settings = limit.limiter().getSettings();
			if (settings.pauseOnThrottle().enabled() || settings.adaptiveConcurrency() != null) {
				return true;
			}
		}
		return false;
	}

	/**
	 * After a call failed, before its permit is closed: records a drop on the permit when a
	 * limiter of the method adapts its limit and reads the failure as one, and pauses the call's
	 * key of each limiter of the method that pauses and reads the failure as a throttle signal, on
	 * the caller's thread. Never throws: a pause that cannot be stored is logged, and the call's
	 * own failure is what the caller gets.
	 * @param permit the call's permit, which names each limiter's key
	 * @param failure what the call ended with
	 */
	void readFailure(Permit permit, Throwable failure) {
		for (Pause pause : read(permit, failure)) {
			try {
				pause.limiter().pause(pause.key(), pause.throttle());
			}
			catch (RuntimeException ex) {
				logPauseFailure(pause, ex);
			}
		}
	}

	/**
	 * After a call failed: records a drop and pauses as {@link #readFailure} does, without holding
	 * the thread; the drop is recorded before this returns.
	 * @param permit the call's permit, which names each limiter's key
	 * @param failure what the call ended with
	 * @param continuation where to complete when a pause went to a remote store, so that the
	 * caller is not told on the store client's thread
	 * @return completes, always normally, once the pauses are stored (or failed)
	 */
	CompletableFuture<Void> readFailureAsync(Permit permit, Throwable failure, Executor continuation) {
		List<Pause> pauses = read(permit, failure);
		if (pauses.isEmpty()) {
			return CompletableFuture.completedFuture(null);
		}
		CompletableFuture<?>[] stored = new CompletableFuture<?>[pauses.size()];
		for (int i = 0; i < stored.length; i++) {
			Pause pause = pauses.get(i);
			stored[i] = pause.limiter().pauseAsync(pause.key(), pause.throttle()).handle((applied, ex) -> {
				if (ex != null) {
					logPauseFailure(pause, ScheduledAttempts.unwrap(ex));
				}
				return null;
			});
		}
		CompletableFuture<Void> all = CompletableFuture.allOf(stored);
		return all.isDone() ? all : all.thenRunAsync(() -> { }, continuation);
	}

	/**
	 * Reads a failed call for each limiter of its permit, under that limiter's settings now: the
	 * failure is a throttle signal when it carries a status of the limiter's
	 * {@code pause-on-throttle.statuses} (read whether or not pausing is enabled) or a
	 * {@link ThrottleSignal} bean reads it as one. Records a drop on the permit when a limiter
	 * with adaptive concurrency finds a throttle signal or a timeout ({@link Timeouts#isTimeout});
	 * the permit carries one flag, which only adaptive limiters heed.
	 * @return the pauses the call asks for: one per limiter that pauses and finds a throttle signal
	 */
	private List<Pause> read(Permit permit, Throwable failure) {
		List<Pause> pauses = new ArrayList<>(1);
		boolean dropped = false;
		for (RateLimitDecision decision : permit.getDecisions()) {
			RateLimiter limiter = limiterNamed(decision.getLimiterName());
			if (limiter == null) {
				continue;
			}
			RateLimiterSettings settings = limiter.getSettings();
			boolean pausing = settings.pauseOnThrottle().enabled();
			boolean adapting = settings.adaptiveConcurrency() != null;
			if (!pausing && (!adapting || dropped)) {
				continue;
			}
			Throttle throttle = this.throttles.read(failure, settings.pauseOnThrottle());
			if (pausing && throttle != null) {
				pauses.add(new Pause(limiter, decision.getKey(), throttle));
			}
			dropped |= adapting && (throttle != null || Timeouts.isTimeout(failure));
		}
		if (dropped) {
			permit.recordDrop();
		}
		return pauses;
	}

	private @Nullable RateLimiter limiterNamed(String name) {
		for (Limit limit : this.limits) {
			if (limit.limiter().getName().equals(name)) {
				return limit.limiter();
			}
		}
		return null;
	}

	private static void logPauseFailure(Pause pause, Throwable failure) {
		// The key stays in the process: the limiter's name and the cause say enough.
		logger.log(System.Logger.Level.WARNING, "Rate limiter '" + pause.limiter().getName()
				+ "' could not pause a key after a throttle signal (" + pause.throttle().cause().tag() + "): "
				+ failure.getClass().getName());
	}

	/** A key to pause. */
	private record Pause(RateLimiter limiter, String key, Throttle throttle) {
	}

	/**
	 * Whether an admitted call holds a concurrency permit to give back when it ends; without, its
	 * permit holds nothing and closing it does nothing.
	 * @return whether a limiter of the method has {@code max-concurrent}
	 */
	boolean holdsPermits() {
		return this.holdsPermits;
	}

	/**
	 * Admits one call through every limiter of the method, all or nothing.
	 * @param arguments the call's arguments, over which the keys are evaluated
	 * @return the permit, to close when the call ends
	 * @throws dev.resilience.ratelimit.RateLimitExceededException if a limiter rejects the call
	 * @throws IllegalArgumentException if a key evaluates to {@code null} or an empty string
	 */
	public Permit acquire(@Nullable Object[] arguments) {
		if (this.limits.size() == 1) {
			Limit limit = this.limits.get(0);
			return limit.limiter().acquire(limit.key(arguments), limit.cost(), limit.maxWait());
		}
		return this.registry.acquireAll(requests(arguments));
	}

	/**
	 * Admits one call through every limiter of the method, all or nothing, without holding the
	 * calling thread: see {@link RateLimiter#acquireAsync(String, int, Duration, ScheduledExecutorService)}
	 * and {@link RateLimiterRegistry#acquireAllAsync(List, ScheduledExecutorService)}. Nothing is
	 * thrown: every outcome, a bad key included, completes the future.
	 * @param arguments the call's arguments, over which the keys are evaluated
	 * @param scheduler runs the waits and the continuations
	 * @return the permit, to close when the call ends; completed exceptionally with
	 * {@link dev.resilience.ratelimit.RateLimitExceededException} if a limiter rejects the call, or
	 * with {@link IllegalArgumentException} if a key evaluates to {@code null} or an empty string
	 */
	public CompletableFuture<Permit> acquireAsync(@Nullable Object[] arguments, ScheduledExecutorService scheduler) {
		try {
			if (this.limits.size() == 1) {
				Limit limit = this.limits.get(0);
				return limit.limiter().acquireAsync(limit.key(arguments), limit.cost(), limit.maxWait(), scheduler);
			}
			return this.registry.acquireAllAsync(requests(arguments), scheduler);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private List<RateLimitRequest> requests(@Nullable Object[] arguments) {
		List<RateLimitRequest> requests = new ArrayList<>(this.limits.size());
		for (Limit limit : this.limits) {
			requests.add(new RateLimitRequest(limit.limiter(), limit.key(arguments), limit.cost(), limit.maxWait()));
		}
		return requests;
	}

	/**
	 * One {@code @RateLimited} of a method.
	 *
	 * @param limiter the limiter
	 * @param key the key expression, or {@code null} for the limiter's shared bucket
	 * @param cost the call's cost
	 * @param maxWait the longest wait
	 * @param where the annotation and method, for messages
	 */
	record Limit(RateLimiter limiter, @Nullable MethodExpression key, int cost, Duration maxWait, String where) {

		/** The key's text as written, empty for the shared bucket. */
		String keyText() {
			return (this.key != null) ? this.key.getExpressionString() : "";
		}

		/** The key of one call: a null or empty one would silently share one bucket. */
		String key(@Nullable Object[] arguments) {
			MethodExpression expression = this.key;
			if (expression == null) {
				return "";
			}
			Object value = expression.evaluate(arguments);
			String key = (value != null) ? value.toString() : null;
			if (key == null) {
				throw invalidKey(expression, "null", "a null key");
			}
			if (key.isEmpty()) {
				throw invalidKey(expression, "an empty string", "an empty key");
			}
			return key;
		}

		private IllegalArgumentException invalidKey(MethodExpression expression, String value, String key) {
			return new IllegalArgumentException("The key expression '" + expression.getExpressionString() + "' of "
					+ this.where + " evaluated to " + value + "; " + key + " would silently share one bucket");
		}

	}

}
