package dev.resilience.poll;

import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.retry.Backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** {@link Poller#await()} on a manual clock: delays, attempts, timeout, exceptions and history. */
class PollerTests {

	private final ManualTicker ticker = new ManualTicker(5_000_000_000L);

	private final List<PollHistory<?>> ended = new ArrayList<>();

	@Test
	void defaultsMakeFiveAttemptsTenTwentyThirtyFortyMillisecondsApart() {
		AtomicInteger calls = new AtomicInteger();
		Poller<String> poller = poller(() -> {
			calls.incrementAndGet();
			return null;
		}).build();

		PollExhaustedException exhausted = catchThrowableOfType(PollExhaustedException.class, poller::await);

		assertThat(exhausted).hasMessage("Tried 5 times over 100ms, but condition was never met").hasNoCause();
		assertThat(exhausted.getTimeout()).isNull();
		assertThat(calls).hasValue(5);
		assertThat(this.ticker.sleeps()).containsExactly(ms(10), ms(20), ms(30), ms(40));
		assertThat(exhausted.getHistory()).isEqualTo(new PollHistory<>(List.of(unmet(1, 0, null), unmet(2, 10, null),
				unmet(3, 20, null), unmet(4, 30, null), unmet(5, 40, null)), ms(100), null));
		assertThat(this.ended).containsExactly(exhausted.getHistory());
	}

	@Test
	void returnsTheFirstValueThatMeetsTheCondition() {
		Poller<String> poller = poller(values("PENDING", "PENDING", "DONE", "LATER"), "DONE"::equals).build();

		assertThat(poller.await()).isEqualTo("DONE");
		assertThat(this.ticker.sleeps()).containsExactly(ms(10), ms(20));
		assertThat(this.ended).containsExactly(new PollHistory<>(List.of(unmet(1, 0, "PENDING"), unmet(2, 10, "PENDING"),
				new PollAttempt<>(3, ms(20), true, "DONE", null)), ms(30), "DONE"));
	}

	@Test
	void aFirstAttemptThatMeetsTheConditionNeverSleeps() {
		assertThat(poller(() -> "ready").build().await()).isEqualTo("ready");
		assertThat(this.ticker.sleeps()).isEmpty();
		assertThat(this.ended.get(0).fulfilled()).isTrue();
	}

	@Test
	void fixedBackoffRepeatsTheDelay() {
		await(poller(() -> null).backoff(Backoff.FIXED).delay(ms(250)).maxAttempts(4));
		assertThat(this.ticker.sleeps()).containsExactly(ms(250), ms(250), ms(250));
	}

	@Test
	void linearBackoffGrowsByTheFirstDelay() {
		await(poller(() -> null).backoff(Backoff.LINEAR).delay(ms(100)).maxAttempts(4));
		assertThat(this.ticker.sleeps()).containsExactly(ms(100), ms(200), ms(300));
	}

	@Test
	void exponentialBackoffMultiplies() {
		await(poller(() -> null).backoff(Backoff.EXPONENTIAL).delay(ms(100)).multiplier(3).maxAttempts(5));
		assertThat(this.ticker.sleeps()).containsExactly(ms(100), ms(300), ms(900), ms(2700));
	}

	@Test
	void maxDelayCapsEveryDelay() {
		PollExhaustedException exhausted = await(
				poller(() -> null).backoff(Backoff.EXPONENTIAL).delay(ms(500)).maxDelay(Duration.ofSeconds(1)).maxAttempts(5));
		assertThat(this.ticker.sleeps()).containsExactly(ms(500), ms(1000), ms(1000), ms(1000));
		assertThat(exhausted).hasMessage("Tried 5 times over 3500ms, but condition was never met");
	}

	@Test
	void oneAttemptOnlyIsTriedOnceOverNothing() {
		assertThat(await(poller(() -> "", (value) -> false).maxAttempts(1))).hasMessage("Tried 1 time over 0ms, but condition was never met");
		assertThat(this.ticker.sleeps()).isEmpty();
	}

	@Test
	void unlimitedAttemptsEndAtTheTimeoutOnTime() {
		long start = this.ticker.read();
		PollExhaustedException exhausted = await(poller(() -> null).backoff(Backoff.FIXED)
			.delay(ms(100))
			.maxAttempts(PollSettings.UNLIMITED)
			.timeout(Duration.ofSeconds(1)));

		// Attempts at 0, 100, ..., 1000 ms: the eleventh begins exactly at the deadline, the twelfth would begin past it.
		assertThat(exhausted.getHistory().attempts()).hasSize(11);
		assertThat(this.ticker.read() - start).isEqualTo(Duration.ofSeconds(1).toNanos());
		assertThat(exhausted).hasMessage("Tried 11 times over 1s, but condition was never met within the timeout of 1s");
		assertThat(exhausted.getTimeout()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void aTimeoutInTheMiddleOfADelayEndsThePollWithoutWaitingInVain() {
		long start = this.ticker.read();
		PollExhaustedException exhausted = await(poller(() -> null).timeout(ms(55)));

		// Attempts at 0, 10 and 30 ms; the fourth would begin at 60 ms, past the timeout, so it is not waited for.
		assertThat(this.ticker.sleeps()).containsExactly(ms(10), ms(20));
		assertThat(this.ticker.read() - start).isEqualTo(ms(30).toNanos());
		assertThat(exhausted).hasMessage("Tried 3 times over 30ms, but condition was never met within the timeout of 55ms");
	}

	@Test
	void theTimeoutCountsTheTimeAttemptsTake() {
		PollExhaustedException exhausted = await(poller(() -> {
			this.ticker.advance(ms(20));
			return null;
		}).timeout(ms(60)));

		// Attempts begin at 0 and 30 ms (each takes 20); the third would begin at 70 ms.
		assertThat(exhausted.getHistory().attempts()).hasSize(2);
		assertThat(exhausted).hasMessage("Tried 2 times over 10ms, but condition was never met within the timeout of 60ms");
	}

	@Test
	void theLastAttemptIsNotCutShortByTheTimeout() {
		Iterator<String> values = List.of("PENDING", "DONE").iterator();
		Poller<String> poller = poller(() -> {
			this.ticker.advance(ms(40));
			return values.next();
		}, "DONE"::equals).timeout(ms(50)).build();

		// The second attempt begins at 50 ms, on the deadline, and ends at 90 ms with the value.
		assertThat(poller.await()).isEqualTo("DONE");
	}

	@Test
	void anAbsurdDelayEndsThePollAtTheTimeoutInsteadOfOverflowing() {
		// A delay of about 292 billion years, as a user writes to mean "never": the next attempt
		// would begin past the timeout, so the poll ends now, without overflowing or waiting.
		Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
		PollExhaustedException exhausted = await(poller(() -> {
			this.ticker.advance(Duration.ofSeconds(1));
			return null;
		}).backoff(Backoff.FIXED).delay(forever).maxDelay(forever).timeout(Duration.ofMinutes(1)));

		assertThat(exhausted.getHistory().attempts()).hasSize(1);
		assertThat(exhausted.getTimeout()).isEqualTo(Duration.ofMinutes(1));
		assertThat(this.ticker.sleeps()).isEmpty();
	}

	@Test
	void anAbsurdDelayWithoutATimeoutSumsToTheLongestDurationInsteadOfOverflowing() {
		Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
		PollExhaustedException exhausted = await(
				poller(() -> null).backoff(Backoff.FIXED).delay(forever).maxDelay(forever).maxAttempts(3));

		assertThat(exhausted.getHistory().attempts()).hasSize(3);
		assertThat(exhausted.getHistory().totalDelay()).isEqualTo(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999));
	}

	@Test
	void anAbsurdTimeoutIsNoTimeoutAtAll() {
		Duration forever = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
		PollExhaustedException exhausted = await(poller(() -> {
			this.ticker.advance(Duration.ofSeconds(1));
			return null;
		}).backoff(Backoff.FIXED).delay(ms(100)).maxAttempts(3).timeout(forever));

		assertThat(exhausted.getHistory().attempts()).hasSize(3);
		assertThat(exhausted.getTimeout()).isNull();
		assertThat(this.ticker.sleeps()).containsExactly(ms(100), ms(100));
	}

	@Test
	void theAttemptsEndThePollBeforeTheTimeout() {
		PollExhaustedException exhausted = await(poller(() -> null).maxAttempts(2).timeout(Duration.ofMinutes(1)));
		assertThat(exhausted).hasMessage("Tried 2 times over 10ms, but condition was never met");
		assertThat(exhausted.getTimeout()).isNull();
	}

	@Test
	void anExceptionEndsThePollAsItselfByDefault() {
		IllegalStateException failure = new IllegalStateException("partner down");
		AtomicInteger calls = new AtomicInteger();
		Poller<String> poller = poller(() -> {
			if (calls.incrementAndGet() == 2) {
				throw failure;
			}
			return null;
		}).build();

		assertThatIllegalStateException().isThrownBy(poller::await).isSameAs(failure);
		assertThat(calls).hasValue(2);
		assertThat(this.ticker.sleeps()).containsExactly(ms(10));
		assertThat(this.ended).isEmpty();
	}

	@Test
	void ignoredExceptionsAreUnmetAttemptsInTheHistory() {
		IllegalStateException first = new IllegalStateException("first");
		IllegalStateException second = new IllegalStateException("second");
		Iterator<Object> outcomes = List.<Object>of(first, "PENDING", second).iterator();
		Poller<String> poller = poller(() -> {
			Object outcome = outcomes.next();
			if (outcome instanceof RuntimeException ex) {
				throw ex;
			}
			return (String) outcome;
		}, "DONE"::equals).maxAttempts(3).ignoreExceptions(true).build();

		PollExhaustedException exhausted = catchThrowableOfType(PollExhaustedException.class, poller::await);

		assertThat(exhausted.getHistory().attempts()).isEqualTo(List.of(new PollAttempt<String>(1, Duration.ZERO, false, null, first),
				unmet(2, 10, "PENDING"), new PollAttempt<String>(3, ms(20), false, null, second)));
		assertThat(exhausted.getHistory().lastValue()).isNull();
		assertThat(exhausted).hasCause(second);
	}

	@Test
	void anIgnoredExceptionIsFollowedByTheNextAttempt() {
		AtomicInteger calls = new AtomicInteger();
		Poller<String> poller = poller(() -> {
			if (calls.incrementAndGet() == 1) {
				throw new IllegalStateException("not yet");
			}
			return "DONE";
		}).ignoreExceptions(true).build();

		assertThat(poller.await()).isEqualTo("DONE");
		assertThat(this.ticker.sleeps()).containsExactly(ms(10));
	}

	@Test
	void errorsAreNeverIgnored() {
		Poller<String> poller = poller(() -> {
			throw new AssertionError("broken");
		}).ignoreExceptions(true).build();

		assertThatExceptionOfType(AssertionError.class).isThrownBy(poller::await).withMessage("broken");
	}

	@Test
	void anExceptionOfTheConditionEndsThePollEvenWhenExceptionsAreIgnored() {
		Poller<String> poller = poller(() -> "x", (value) -> {
			throw new IllegalArgumentException("bad condition");
		}).ignoreExceptions(true).build();

		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(poller::await).withMessage("bad condition");
	}

	@Test
	void theDefaultConditionIsAPresentValue() {
		assertThat(Poller.isPresent(null)).isFalse();
		assertThat(Poller.isPresent(false)).isFalse();
		assertThat(Poller.isPresent(Optional.empty())).isFalse();
		assertThat(Poller.isPresent(true)).isTrue();
		assertThat(Poller.isPresent(Optional.of("x"))).isTrue();
		assertThat(Poller.isPresent("")).isTrue();
		assertThat(Poller.isPresent(0)).isTrue();
		Iterator<Object> values = List.<Object>of(false, Optional.empty(), Optional.of("export")).iterator();
		assertThat(Poller.builder(values::next).ticker(this.ticker).sleeper(this.ticker.sleeper()).build().await())
			.isEqualTo(Optional.of("export"));
	}

	@Test
	void anInterruptDuringADelayStopsAtOnceAndKeepsTheFlag() {
		AtomicInteger calls = new AtomicInteger();
		Poller<String> poller = Poller.<String>builder(() -> {
			calls.incrementAndGet();
			return null;
		}).sleeper((nanos) -> {
			throw new InterruptedException();
		}).build();

		assertThat(awaitInterrupted(poller)).hasMessage("Polling was interrupted after 1 attempt")
			.hasCauseInstanceOf(InterruptedException.class);
		assertThat(calls).hasValue(1);
		assertThat(this.ended).isEmpty();
	}

	@Test
	void anIgnoredInterruptionEndsThePollAndKeepsTheFlag() {
		List<Exception> interruptions = List.of(new IllegalStateException(new InterruptedException()),
				new UncheckedIOException(new InterruptedIOException()),
				new UncheckedIOException(new ClosedByInterruptException()));
		for (Exception interruption : interruptions) {
			AtomicInteger calls = new AtomicInteger();
			Poller<String> poller = poller(() -> {
				calls.incrementAndGet();
				throw (RuntimeException) interruption;
			}).ignoreExceptions(true).build();
			assertThat(awaitInterrupted(poller)).hasMessage("Polling was interrupted after 1 attempt")
				.hasCause(interruption);
			assertThat(calls).hasValue(1);
		}
		assertThat(this.ticker.sleeps()).isEmpty();
		assertThat(this.ended).isEmpty();
	}

	@Test
	void anIgnoredSocketTimeoutIsNotAnInterruption() {
		AtomicInteger calls = new AtomicInteger();
		Poller<String> poller = poller(() -> {
			if (calls.incrementAndGet() == 1) {
				throw new UncheckedIOException(new SocketTimeoutException("slow"));
			}
			return "DONE";
		}).ignoreExceptions(true).build();

		assertThat(poller.await()).isEqualTo("DONE");
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
	}

	@Test
	void anInterruptBeforeAZeroDelayAttemptStopsThePoll() {
		AtomicInteger calls = new AtomicInteger();
		Poller<String> poller = poller(() -> {
			if (calls.incrementAndGet() == 2) {
				Thread.currentThread().interrupt();
			}
			return null;
		}).delay(Duration.ZERO).maxAttempts(5).build();

		assertThat(awaitInterrupted(poller)).hasMessage("Polling was interrupted after 2 attempts").hasNoCause();
		assertThat(calls).hasValue(2);
		assertThat(this.ended).isEmpty();
	}

	@Test
	void aDelayTooLongForNanosecondsIsSleptAsTheLongestSleep() {
		Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
		List<Long> slept = new ArrayList<>();
		Poller<String> poller = Poller.builder(values("", "DONE"), "DONE"::equals).delay(forever).maxDelay(forever)
			.sleeper(slept::add)
			.build();

		assertThat(poller.await()).isEqualTo("DONE");
		assertThat(slept).containsExactly(Long.MAX_VALUE);
	}

	@Test
	void aFailingListenerDoesNotChangeTheOutcome() {
		Poller<String> poller = poller(() -> "ready").listener((name, history) -> {
			throw new IllegalStateException("listener broken");
		}).build();

		assertThat(poller.await()).isEqualTo("ready");
		assertThat(this.ended).hasSize(1);
	}

	@Test
	void listenersAreToldThePollersName() {
		List<String> names = new ArrayList<>();
		Poller<String> poller = Poller.<String>builder(() -> "ready").name("export").listener((name, history) -> names.add(name)).build();
		poller.await();
		assertThat(names).containsExactly("export");
		assertThat(poller.getName()).isEqualTo("export");
		assertThat(Poller.builder(() -> "x").build().getName()).isEqualTo("poller");
	}

	@Test
	void namedSettingsAreTakenAndCanBeChangedAfterwards() {
		PollSettings settings = PollSettings.builder().delay(ms(5)).backoff(Backoff.FIXED).maxAttempts(3).build();

		Poller<String> poller = poller(() -> null).maxAttempts(9).settings(settings).delay(ms(7)).build();

		assertThat(poller.getSettings()).isEqualTo(settings.toBuilder().delay(ms(7)).build());
		await(poller(() -> null).settings(settings));
		assertThat(this.ticker.sleeps()).containsExactly(ms(5), ms(5));
	}

	private Poller.Builder<String> poller(Supplier<String> supplier) {
		return poller(supplier, Poller::isPresent);
	}

	private Poller.Builder<String> poller(Supplier<String> supplier, Predicate<String> condition) {
		return Poller.builder(supplier, condition)
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.listener((name, history) -> this.ended.add(history));
	}

	/** Awaits a poll that must end interrupted, the flag set; clears the flag for the next test. */
	private static CancellationException awaitInterrupted(Poller<String> poller) {
		try {
			CancellationException cancelled = catchThrowableOfType(CancellationException.class, poller::await);
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
			return cancelled;
		}
		finally {
			Thread.interrupted();
		}
	}

	private static PollExhaustedException await(Poller.Builder<String> builder) {
		return catchThrowableOfType(PollExhaustedException.class, builder.build()::await);
	}

	private static Supplier<String> values(String... values) {
		Iterator<String> iterator = List.of(values).iterator();
		return iterator::next;
	}

	static PollAttempt<String> unmet(int number, long delayMillis, String value) {
		return new PollAttempt<>(number, ms(delayMillis), false, value, null);
	}

	static Duration ms(long millis) {
		return Duration.ofMillis(millis);
	}

}
