package dev.resilience.autoconfigure.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.Causes;
import dev.resilience.internal.SettingsText;
import dev.resilience.poll.PollHistory;
import dev.resilience.poll.PollListener;
import dev.resilience.pool.ConnectionPoolListener;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.StoreFailureListener;
import dev.resilience.ratelimit.Throttle;
import dev.resilience.retry.RetryAttempt;
import dev.resilience.retry.RetryCallOutcome;
import dev.resilience.retry.RetryListener;

/**
 * Keeps the most recent events of every capability, the ones worth a look when something went
 * wrong, for {@code GET /actuator/resilience/events}: rejections, waits and paused keys of rate
 * limiters, retries and exhausted retries, exhausted polls, checkout and operation timeouts of
 * pools, and failures of a rate limiter's remote store. It is a listener of each capability;
 * what went as planned (a call admitted at once, a first attempt, a poll fulfilled, a connection
 * in time) is not recorded, and a rate limiter does not even call it for a call admitted without
 * a wait ({@link #admissionsWithoutWait()}).
 * <p>
 * Memory is bounded: the last {@code bufferSize} events are kept, each small (no stack trace,
 * an error's description cut to {@value #MAX_ERROR_LENGTH} characters). Recording takes no lock.
 * A rate-limit key is kept only with {@code includeKeys}, since keys may identify users.
 */
public final class ResilienceEvents
		implements RateLimitListener, RetryListener, PollListener, ConnectionPoolListener, StoreFailureListener {

	/** The longest description of an error an event keeps. */
	static final int MAX_ERROR_LENGTH = 200;

	private final EventRing<Event> ring;

	private final boolean includeKeys;

	private final Clock clock;

	/**
	 * Creates an empty buffer.
	 * @param bufferSize how many events to keep, at least 1
	 * @param includeKeys whether to keep the key of each rate-limit event
	 * @param clock tells the time of each event
	 * @throws IllegalArgumentException if {@code bufferSize} is less than 1
	 */
	public ResilienceEvents(int bufferSize, boolean includeKeys, Clock clock) {
		if (bufferSize < 1) {
			throw new IllegalArgumentException(
					"resilience.events.buffer-size must be at least 1 but was " + bufferSize);
		}
		this.ring = new EventRing<>(bufferSize);
		this.includeKeys = includeKeys;
		this.clock = clock;
	}

	/**
	 * Returns the events kept, newest first, optionally only those of one name or one kind.
	 * @param name the name of the limiter, retry, poll or pool, or {@code null} for all
	 * @param kind the kind, or {@code null} for all
	 * @return the events
	 */
	public Recent recent(@Nullable String name, @Nullable Kind kind) {
		String tag = (kind != null) ? kind.tag() : null;
		List<Event> events = this.ring.newestFirst()
			.stream()
			.filter((event) -> name == null || event.name().equals(name))
			.filter((event) -> tag == null || event.kind().equals(tag))
			.toList();
		return new Recent(this.ring.size(), this.ring.appended(), events);
	}

	/** Not told of calls admitted at once: recording nothing, it would cost them a call. */
	@Override
	public boolean admissionsWithoutWait() {
		return false;
	}

	@Override
	public void onDecision(RateLimiter limiter, RateLimitDecision decision) {
		if (!decision.isPermitted()) {
			add(Kind.REJECTED, limiter.getName(), "rejected", decision.getKey(), "retryAfter", decision.getRetryAfter(),
					"concurrencyLimited", decision.isConcurrencyLimited());
		}
		else if (!decision.getWait().isZero()) {
			add(Kind.WAITED, limiter.getName(), "waited", decision.getKey(), "wait", decision.getWait());
		}
	}

	@Override
	public void onPause(RateLimiter limiter, String key, Duration pause, Throttle.Cause cause) {
		add(Kind.PAUSE, limiter.getName(), cause.tag(), key, "pause", pause);
	}

	@Override
	public void onAttempt(String name, RetryAttempt attempt) {
		if (attempt.number() == 1) {
			return;
		}
		Throwable failure = attempt.failure();
		if (failure != null) {
			add(Kind.RETRIED, name, tag(attempt.outcome()), null, "attempt", attempt.number(), "delay",
					attempt.delayBefore(), "error", describe(failure));
		}
		else {
			add(Kind.RETRIED, name, tag(attempt.outcome()), null, "attempt", attempt.number(), "delay",
					attempt.delayBefore());
		}
	}

	@Override
	public void onCallEnded(String name, RetryCallOutcome outcome, List<RetryAttempt> attempts) {
		if (outcome != RetryCallOutcome.FAILED_WITH_RETRY && outcome != RetryCallOutcome.FAILED_BUDGET_EXHAUSTED) {
			return;
		}
		Throwable failure = attempts.isEmpty() ? null : attempts.get(attempts.size() - 1).failure();
		if (failure != null) {
			add(Kind.RETRIES_EXHAUSTED, name, outcome.tag(), null, "attempts", attempts.size(), "error",
					describe(failure));
		}
		else {
			add(Kind.RETRIES_EXHAUSTED, name, outcome.tag(), null, "attempts", attempts.size());
		}
	}

	@Override
	public void onPollEnded(String name, PollHistory<?> history) {
		if (!history.fulfilled()) {
			add(Kind.POLL_EXHAUSTED, name, "exhausted", null, "attempts", history.attempts().size(), "totalDelay",
					history.totalDelay());
		}
	}

	@Override
	public void onCheckout(String pool, CheckoutOutcome outcome, Duration waited) {
		if (outcome == CheckoutOutcome.TIMEOUT) {
			add(Kind.CHECKOUT_TIMEOUT, pool, "timeout", null, "waited", waited);
		}
	}

	@Override
	public void onOperation(String pool, OperationOutcome outcome, Duration duration) {
		if (outcome == OperationOutcome.TIMEOUT) {
			add(Kind.OPERATION_TIMEOUT, pool, "timeout", null, "duration", duration);
		}
	}

	@Override
	public void onStoreFailure(String limiter, String store, String operation, Throwable failure) {
		add(Kind.STORE_FAILURE, limiter, "error", null, "store", store, "operation", operation, "error",
				describe(failure));
	}

	private void add(Kind kind, String name, String outcome, @Nullable String key, Object... details) {
		Map<String, Object> map = new LinkedHashMap<>();
		for (int i = 0; i < details.length; i += 2) {
			// A duration as application.yml writes it, as the endpoint shows settings.
			Object value = (details[i + 1] instanceof Duration duration) ? SettingsText.of(duration) : details[i + 1];
			map.put((String) details[i], value);
		}
		this.ring.add(new Event(this.clock.instant(), kind.tag(), name, outcome, this.includeKeys ? key : null,
				Collections.unmodifiableMap(map)));
	}

	private static String tag(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * The failure's innermost meaningful cause, as {@code SimpleName: message}, cut short; without
	 * {@code includeKeys}, a rejection's key is taken out of it (a retried rejection's message
	 * names its key).
	 */
	private String describe(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		String message = cause.getMessage();
		String description = cause.getClass().getSimpleName() + ((message != null) ? ": " + message : "");
		if (!this.includeKeys) {
			for (Throwable rejected : Causes.chain(cause)) {
				if (rejected instanceof RateLimitExceededException exceeded && !exceeded.getKey().isEmpty()) {
					description = description.replace(" for key '" + exceeded.getKey() + "'", "");
				}
			}
		}
		return (description.length() <= MAX_ERROR_LENGTH) ? description
				: description.substring(0, MAX_ERROR_LENGTH - 1) + "…";
	}

	/**
	 * What an event is about, its {@code kind}: the meters' tag style, lower case with
	 * underscores.
	 */
	public enum Kind {

		/** A rate limiter rejected a call. */
		REJECTED,

		/** A rate limiter admitted a call after a wait. */
		WAITED,

		/**
		 * A key of a rate limiter was paused, by its partner's throttle signal or by hand; its
		 * outcome is the pause's {@link Throttle.Cause#tag() cause}.
		 */
		PAUSE,

		/** A retried call made an attempt after the first. */
		RETRIED,

		/** A retried call failed after retrying, or when the retry budget had no retry left. */
		RETRIES_EXHAUSTED,

		/** A poll made its last attempt without its condition being met. */
		POLL_EXHAUSTED,

		/** A call gave up waiting for a pooled connection at its deadline. */
		CHECKOUT_TIMEOUT,

		/** The work with a pooled connection passed its deadline. */
		OPERATION_TIMEOUT,

		/** A rate limiter's remote store did not answer. */
		STORE_FAILURE;

		/**
		 * Returns the kind as events and {@code ?kind=} name it, such as {@code checkout_timeout}.
		 * @return the tag
		 */
		public String tag() {
			return name().toLowerCase(Locale.ROOT);
		}

		/**
		 * Returns the kind a tag names.
		 * @param tag such as {@code checkout_timeout}
		 * @return the kind
		 * @throws IllegalArgumentException naming the allowed values if there is no such kind
		 */
		public static Kind of(String tag) {
			for (Kind kind : values()) {
				if (kind.tag().equals(tag)) {
					return kind;
				}
			}
			throw new IllegalArgumentException("Unknown event kind '" + tag + "'; allowed: "
					+ Arrays.stream(values()).map(Kind::tag).collect(Collectors.joining(", ")));
		}

	}

	/**
	 * One event.
	 *
	 * @param time when it was recorded
	 * @param kind what it is about, a {@link Kind#tag()}
	 * @param name the rate limiter's, retry's, poll's or pool's name
	 * @param outcome how it ended, in the style of the matching meter's {@code outcome} or
	 * {@code kind} tag; for a pause, its {@code cause} tag
	 * @param key the rate-limit key, only for rate-limit events and only when keys are included
	 * @param details its numbers (durations, written as in {@code application.yml} such as
	 * {@code 250ms}, and attempts) and, for failures, the error
	 */
	public record Event(Instant time, String kind, String name, String outcome, @Nullable String key,
			Map<String, Object> details) {
	}

	/**
	 * The events kept.
	 *
	 * @param bufferSize how many events are kept at most
	 * @param recorded how many were recorded since the start, those no longer kept included
	 * @param events the events, newest first
	 */
	public record Recent(int bufferSize, long recorded, List<Event> events) {
	}

}
