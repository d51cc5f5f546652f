package dev.resilience.autoconfigure.actuate;

import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.autoconfigure.actuate.ResilienceEvents.Event;
import dev.resilience.autoconfigure.actuate.ResilienceEvents.Kind;
import dev.resilience.poll.PollAttempt;
import dev.resilience.poll.PollHistory;
import dev.resilience.pool.ConnectionPoolListener.CheckoutOutcome;
import dev.resilience.pool.ConnectionPoolListener.OperationOutcome;
import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Throttle;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;
import dev.resilience.retry.RetryAttempt;
import dev.resilience.retry.RetryCallOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests {@link ResilienceEvents}: which events of each capability it records, with which numbers,
 * keys only when asked, the filters, and nothing recorded nor allocated for what went as planned.
 */
class ResilienceEventsTests {

	private static final Instant NOW = Instant.parse("2026-11-25T20:00:00Z");

	private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);

	private final ManualTicker ticker = new ManualTicker();

	private final ResilienceEvents events = new ResilienceEvents(10, false, this.clock);

	private RateLimiter limiter(ResilienceEvents events) {
		return limiter(events, PauseOnThrottleSettings.DISABLED);
	}

	/** A limiter that pauses, for at most a minute. */
	private RateLimiter pausingLimiter(ResilienceEvents events) {
		return limiter(events,
				new PauseOnThrottleSettings(true, Set.of(429), Duration.ofSeconds(2), Duration.ofMinutes(1), 0.1));
	}

	private RateLimiter limiter(ResilienceEvents events, PauseOnThrottleSettings pauseOnThrottle) {
		return StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.listener(events)
			.limiter("partner", RateLimiterSettings.builder()
				.window(1, Duration.ofSeconds(10))
				.pauseOnThrottle(pauseOnThrottle)
				.build())
			.build()
			.get("partner");
	}

	@Test
	void bufferSizeBelowOneIsRefusedNamingTheProperty() {
		assertThatIllegalArgumentException().isThrownBy(() -> new ResilienceEvents(0, false, this.clock))
			.withMessage("resilience.events.buffer-size must be at least 1 but was 0");
	}

	@Test
	void rejectionAndWaitAreRecordedWithoutTheKey() {
		RateLimiter limiter = limiter(this.events);
		limiter.acquire("alice", 1, Duration.ZERO).close();
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> limiter.acquire("alice", 1, Duration.ZERO));
		limiter.acquire("alice", 1, Duration.ofSeconds(10)).close();
		assertThat(this.events.recent(null, null).events()).containsExactly(
				new Event(NOW, "waited", "partner", "waited", null, Map.of("wait", "10s")),
				new Event(NOW, "rejected", "partner", "rejected", null,
						Map.of("retryAfter", "10s", "concurrencyLimited", false)));
	}

	@Test
	void keysAreRecordedOnlyWhenIncluded() {
		ResilienceEvents withKeys = new ResilienceEvents(10, true, this.clock);
		RateLimiter limiter = limiter(withKeys);
		limiter.tryAcquire("alice", 1);
		limiter.tryAcquire("alice", 1);
		assertThat(withKeys.recent(null, null).events()).singleElement()
			.extracting(Event::key)
			.isEqualTo("alice");
	}

	/**
	 * A pause is recorded with its cause as outcome and the pause applied (after max-pause); a
	 * call of the paused key is a rejection as any other.
	 */
	@Test
	void pauseIsRecordedWithItsCauseAndLengthWithoutTheKey() {
		RateLimiter limiter = pausingLimiter(this.events);
		limiter.pause("alice", Duration.ofSeconds(30));
		limiter.pause("bob", Throttle.retryAfter(Duration.ofHours(1)));
		limiter.pause("bob", Throttle.rateLimitField(Duration.ofSeconds(5)));
		limiter.pause("carol", Throttle.unspecified());
		assertThat(this.events.recent(null, Kind.PAUSE).events()).containsExactly(
				new Event(NOW, "pause", "partner", "default", null, Map.of("pause", "2s")),
				new Event(NOW, "pause", "partner", "ratelimit-field", null, Map.of("pause", "5s")),
				new Event(NOW, "pause", "partner", "retry-after", null, Map.of("pause", "1m")),
				new Event(NOW, "pause", "partner", "manual", null, Map.of("pause", "30s")));
		assertThat(limiter.tryAcquire("alice", 1).isPermitted()).isFalse();
		assertThat(this.events.recent(null, null).events().get(0).kind()).isEqualTo("rejected");
		assertThat(this.events.recent(null, null).events()).allSatisfy((event) -> assertThat(event.toString())
			.doesNotContain("alice", "bob", "carol"));
	}

	@Test
	void pauseKeyIsRecordedOnlyWhenIncluded() {
		ResilienceEvents withKeys = new ResilienceEvents(10, true, this.clock);
		pausingLimiter(withKeys).pause("alice", Duration.ofSeconds(30));
		assertThat(withKeys.recent(null, null).events()).singleElement()
			.isEqualTo(new Event(NOW, "pause", "partner", "manual", "alice", Map.of("pause", "30s")));
	}

	/**
	 * A retry of a rejected call (a {@code @Retryable} over a {@code @RateLimited} method) keeps
	 * the rejection's description as its error, whose message names the key when its registry
	 * includes keys: without include-keys the key must not show there either.
	 */
	@Test
	void errorsOfRetriedRejectionsDoNotShowTheKeyUnlessIncluded() {
		RateLimiter limiter = limiter(this.events);
		limiter.tryAcquire("alice", 1);
		RateLimitExceededException rejected = new RateLimitExceededException(limiter.tryAcquire("alice", 1), false,
				true);
		RetryAttempt first = new RetryAttempt(1, Duration.ZERO, Duration.ZERO, RetryAttempt.Outcome.FAILED, rejected);
		RetryAttempt second = new RetryAttempt(2, Duration.ofSeconds(10), Duration.ZERO, RetryAttempt.Outcome.FAILED,
				new CompletionException(rejected));
		this.events.onAttempt("partner-retry", first);
		this.events.onAttempt("partner-retry", second);
		this.events.onCallEnded("partner-retry", RetryCallOutcome.FAILED_WITH_RETRY, List.of(first, second));
		assertThat(this.events.recent(null, null).events()).isNotEmpty()
			.allSatisfy((event) -> assertThat(event.toString()).doesNotContain("alice"));
		assertThat(this.events.recent("partner-retry", null).events()).extracting((event) -> event.details().get("error"))
			.containsOnly("RateLimitExceededException: Rate limiter 'partner' rejected the call; retry after 10s");
		ResilienceEvents withKeys = new ResilienceEvents(10, true, this.clock);
		withKeys.onAttempt("partner-retry", second);
		assertThat(withKeys.recent(null, null).events().get(0).details().get("error")).asString().contains("'alice'");
	}

	@Test
	void rateLimiterDoesNotCallItForAnAdmissionWithoutWait() {
		assertThat(this.events.admissionsWithoutWait()).isFalse();
		RateLimiter limiter = limiter(this.events);
		limiter.tryAcquire("alice", 1);
		assertThat(this.events.recent(null, null).recorded()).isZero();
	}

	@Test
	void retriesAfterTheFirstAttemptAndExhaustedCallsAreRecorded() {
		IllegalStateException boom = new IllegalStateException("boom");
		RetryAttempt first = new RetryAttempt(1, Duration.ZERO, Duration.ofMillis(3), RetryAttempt.Outcome.FAILED, boom);
		RetryAttempt second = new RetryAttempt(2, Duration.ofMillis(100), Duration.ofMillis(3),
				RetryAttempt.Outcome.FAILED, boom);
		RetryAttempt third = new RetryAttempt(3, Duration.ofMillis(200), Duration.ofMillis(3),
				RetryAttempt.Outcome.RESULT_RETRIED, null);
		this.events.onAttempt("partner", first);
		this.events.onAttempt("partner", second);
		this.events.onAttempt("partner", third);
		this.events.onCallEnded("partner", RetryCallOutcome.FAILED_WITH_RETRY, List.of(first, second, third));
		this.events.onCallEnded("budget", RetryCallOutcome.FAILED_BUDGET_EXHAUSTED, List.of(first));
		assertThat(this.events.recent(null, null).events()).containsExactly(
				new Event(NOW, "retries_exhausted", "budget", "failed_budget_exhausted", null,
						Map.of("attempts", 1, "error", "IllegalStateException: boom")),
				new Event(NOW, "retries_exhausted", "partner", "failed_with_retry", null, Map.of("attempts", 3)),
				new Event(NOW, "retried", "partner", "result_retried", null,
						Map.of("attempt", 3, "delay", "200ms")),
				new Event(NOW, "retried", "partner", "failed", null,
						Map.of("attempt", 2, "delay", "100ms", "error", "IllegalStateException: boom")));
	}

	@Test
	void callsThatSucceededOrWereNotRetriedAreNotRecorded() {
		RetryAttempt first = new RetryAttempt(1, Duration.ZERO, Duration.ofMillis(3), RetryAttempt.Outcome.RETURNED,
				null);
		this.events.onAttempt("partner", first);
		this.events.onCallEnded("partner", RetryCallOutcome.SUCCESSFUL_WITHOUT_RETRY, List.of(first));
		this.events.onCallEnded("partner", RetryCallOutcome.SUCCESSFUL_WITH_RETRY, List.of(first, first));
		this.events.onCallEnded("partner", RetryCallOutcome.FAILED_WITHOUT_RETRY, List.of(first));
		assertThat(this.events.recent(null, null).recorded()).isZero();
	}

	@Test
	void onlyExhaustedPollsAreRecorded() {
		PollAttempt<String> pending = new PollAttempt<>(1, Duration.ZERO, false, "pending", null);
		PollAttempt<String> stillPending = new PollAttempt<>(2, Duration.ofSeconds(1), false, "pending", null);
		PollAttempt<String> done = new PollAttempt<>(2, Duration.ofSeconds(1), true, "done", null);
		this.events.onPollEnded("export", new PollHistory<>(List.of(pending, done), Duration.ofSeconds(1), "done"));
		this.events.onPollEnded("export",
				new PollHistory<>(List.of(pending, stillPending), Duration.ofSeconds(1), "pending"));
		assertThat(this.events.recent(null, null).events()).containsExactly(new Event(NOW, "poll_exhausted", "export",
				"exhausted", null, Map.of("attempts", 2, "totalDelay", "1s")));
	}

	/** Durations are written as application.yml takes them, rounded to the millisecond, never {@code PT57.869335721S}. */
	@Test
	void durationsAreWrittenAsApplicationYmlTakesThemRoundedToTheMillisecond() {
		this.events.onOperation("db", OperationOutcome.TIMEOUT, Duration.parse("PT57.869335721S"));
		this.events.onCheckout("db", CheckoutOutcome.TIMEOUT, Duration.ofNanos(250_400_000));
		assertThat(this.events.recent(null, null).events()).extracting(Event::details)
			.containsExactly(Map.of("waited", "250ms"), Map.of("duration", "57869ms"));
	}

	@Test
	void onlyPoolTimeoutsAreRecorded() {
		this.events.onCheckout("db", CheckoutOutcome.ACQUIRED, Duration.ofMillis(5));
		this.events.onCheckout("db", CheckoutOutcome.TIMEOUT, Duration.ofSeconds(2));
		this.events.onOperation("db", OperationOutcome.SUCCESS, Duration.ofMillis(5));
		this.events.onOperation("db", OperationOutcome.ERROR, Duration.ofMillis(5));
		this.events.onOperation("db", OperationOutcome.TIMEOUT, Duration.ofSeconds(3));
		assertThat(this.events.recent(null, null).events()).containsExactly(
				new Event(NOW, "operation_timeout", "db", "timeout", null, Map.of("duration", "3s")),
				new Event(NOW, "checkout_timeout", "db", "timeout", null, Map.of("waited", "2s")));
	}

	@Test
	void storeFailureKeepsAShortDescriptionOfItsCause() {
		this.events.onStoreFailure("shared", "redis", "decision",
				new CompletionException(new IllegalStateException("x".repeat(500))));
		Event event = this.events.recent(null, null).events().get(0);
		assertThat(event).extracting(Event::kind, Event::name, Event::outcome)
			.containsExactly("store_failure", "shared", "error");
		assertThat(event.details()).containsEntry("store", "redis").containsEntry("operation", "decision");
		assertThat((String) event.details().get("error")).startsWith("IllegalStateException: xxx")
			.hasSize(ResilienceEvents.MAX_ERROR_LENGTH)
			.endsWith("…");
	}

	@Test
	void detailsKeepTheirOrder() {
		this.events.onStoreFailure("shared", "redis", "reset", new IllegalStateException("down"));
		assertThat(this.events.recent(null, null).events().get(0).details()).containsExactly(
				Map.entry("store", "redis"), Map.entry("operation", "reset"),
				Map.entry("error", "IllegalStateException: down"));
	}

	@Test
	void recentFiltersByNameAndKindAndKeepsTheNewest() {
		ResilienceEvents two = new ResilienceEvents(2, false, this.clock);
		two.onCheckout("a", CheckoutOutcome.TIMEOUT, Duration.ofSeconds(1));
		two.onCheckout("b", CheckoutOutcome.TIMEOUT, Duration.ofSeconds(2));
		two.onOperation("b", OperationOutcome.TIMEOUT, Duration.ofSeconds(3));
		ResilienceEvents.Recent all = two.recent(null, null);
		assertThat(all.bufferSize()).isEqualTo(2);
		assertThat(all.recorded()).isEqualTo(3);
		assertThat(all.events()).extracting(Event::kind, Event::name)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("operation_timeout", "b"),
					org.assertj.core.groups.Tuple.tuple("checkout_timeout", "b"));
		assertThat(two.recent("a", null).events()).isEmpty();
		assertThat(two.recent("b", Kind.CHECKOUT_TIMEOUT).events()).extracting(Event::kind)
			.containsExactly("checkout_timeout");
		assertThat(two.recent(null, Kind.OPERATION_TIMEOUT).events()).hasSize(1);
		assertThat(two.recent("b", Kind.REJECTED).events()).isEmpty();
	}

	@Test
	void kindsAreNamedInTheMetersStyle() {
		assertThat(Kind.values()).extracting(Kind::tag)
			.containsExactly("rejected", "waited", "pause", "retried", "retries_exhausted", "poll_exhausted",
					"checkout_timeout", "operation_timeout", "store_failure");
		assertThat(Kind.of("store_failure")).isEqualTo(Kind.STORE_FAILURE);
		assertThat(Kind.of("pause")).isEqualTo(Kind.PAUSE);
		assertThatIllegalArgumentException().isThrownBy(() -> Kind.of("STORE_FAILURE"))
			.withMessage("Unknown event kind 'STORE_FAILURE'; allowed: rejected, waited, pause, retried, "
					+ "retries_exhausted, poll_exhausted, checkout_timeout, operation_timeout, store_failure");
	}

	/**
	 * What went as planned allocates nothing: 100,000 calls of each such kind allocate less than
	 * one byte each on this thread (measured by the JVM's per-thread allocation counter).
	 */
	@Test
	void whatWentAsPlannedAllocatesNothing() {
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		RateLimiter limiter = limiter(this.events);
		RateLimitDecision admitted = limiter.inspect("alice");
		assertThat(admitted.isPermitted()).isTrue();
		RetryAttempt first = new RetryAttempt(1, Duration.ZERO, Duration.ZERO, RetryAttempt.Outcome.RETURNED, null);
		List<RetryAttempt> attempts = List.of(first);
		Duration waited = Duration.ofMillis(1);
		int calls = 100_000;
		for (int round = 0; round < 3; round++) {
			long before = threads.getCurrentThreadAllocatedBytes();
			for (int i = 0; i < calls; i++) {
				this.events.onDecision(limiter, admitted);
				this.events.onAttempt("partner", first);
				this.events.onCallEnded("partner", RetryCallOutcome.SUCCESSFUL_WITHOUT_RETRY, attempts);
				this.events.onCheckout("db", CheckoutOutcome.ACQUIRED, waited);
				this.events.onOperation("db", OperationOutcome.SUCCESS, waited);
			}
			long allocated = threads.getCurrentThreadAllocatedBytes() - before;
			if (round == 2) {
				assertThat(allocated).isLessThan(calls);
			}
		}
		assertThat(this.events.recent(null, null).recorded()).isZero();
	}

}
