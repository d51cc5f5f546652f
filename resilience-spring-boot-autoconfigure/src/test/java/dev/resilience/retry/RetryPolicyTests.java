package dev.resilience.retry;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/** The settings of a {@link RetryPolicy}: defaults, checks and copies. */
class RetryPolicyTests {

	@Test
	void defaultsAreTheSpecs() {
		RetryPolicy policy = RetryPolicy.builder().build();
		assertThat(policy.maxRetries()).isEqualTo(3);
		assertThat(policy.backoff())
			.isEqualTo(new BackoffPolicy(Backoff.EXPONENTIAL, Duration.ofMillis(100), 2.0, Duration.ofSeconds(10)));
		assertThat(policy.jitter()).isEqualTo(Jitter.FULL);
		assertThat(policy.maxDuration()).isNull();
		assertThat(policy.retryOn()).containsExactly(Exception.class);
		assertThat(policy.noRetryOn()).isEmpty();
		assertThat(policy.budget()).isNull();
	}

	@Test
	void toBuilderKeepsEverySetting() {
		RetryPolicy policy = RetryPolicy.builder()
			.maxRetries(5)
			.backoff(Backoff.LINEAR)
			.delay(Duration.ofMillis(20))
			.multiplier(3)
			.maxDelay(Duration.ofSeconds(2))
			.jitter(Jitter.EQUAL)
			.maxDuration(Duration.ofSeconds(30))
			.retryOn(List.of(IOException.class))
			.noRetryOn(List.of(IllegalStateException.class))
			.budget(new RetryBudgetSettings(0.2, Duration.ofSeconds(10), 10))
			.build();
		assertThat(policy.toBuilder().build()).isEqualTo(policy);
	}

	@Test
	void settingsAreCheckedInBuild() {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryPolicy.builder().maxRetries(-1).build())
			.withMessage("max-retries must not be negative, but was -1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryPolicy.builder().maxDuration(Duration.ZERO).build())
			.withMessage("max-duration must be positive, but was 0ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryPolicy.builder().maxDuration(Duration.ofSeconds(-1)).build())
			.withMessageStartingWith("max-duration");
		assertThatIllegalArgumentException().isThrownBy(() -> RetryPolicy.builder().retryOn(List.of()).build())
			.withMessage("retry-on must name at least one exception type");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryPolicy.builder().delay(Duration.ofSeconds(20)).build())
			.withMessageContaining("max-delay");
		assertThat(RetryPolicy.builder().maxRetries(0).build().maxRetries()).isZero();
	}

	/** Errors and interrupts are never retried: naming one in retry-on would be silently ignored. */
	@Test
	void retryOnANeverRetriedTypeIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryPolicy.builder().retryOn(List.of(IOException.class, StackOverflowError.class)).build())
			.withMessage("retry-on names java.lang.StackOverflowError, which is never retried: Errors and "
					+ "InterruptedException end a call at once");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryPolicy.builder().retryOn(List.of(InterruptedException.class)).build())
			.withMessageStartingWith("retry-on names java.lang.InterruptedException, which is never retried");
		assertThat(RetryPolicy.builder().retryOn(List.of(Throwable.class)).build().retryOn())
			.containsExactly(Throwable.class);
		assertThat(RetryPolicy.builder().noRetryOn(List.of(Error.class)).build().noRetryOn()).containsExactly(Error.class);
	}

	@Test
	void nullsAreRefused() {
		assertThatNullPointerException().isThrownBy(() -> RetryPolicy.builder().jitter(null)).withMessage("jitter");
		assertThatNullPointerException().isThrownBy(() -> RetryPolicy.builder().backoff(null)).withMessage("backoff");
		assertThatNullPointerException().isThrownBy(() -> RetryPolicy.builder().delay(null)).withMessage("delay");
		assertThatNullPointerException().isThrownBy(() -> RetryPolicy.builder().maxDelay(null)).withMessage("maxDelay");
	}

	@Test
	void callOutcomesAreTaggedInSnakeCase() {
		assertThat(RetryCallOutcome.FAILED_BUDGET_EXHAUSTED.tag()).isEqualTo("failed_budget_exhausted");
		assertThat(RetryCallOutcome.of(true, 1)).isEqualTo(RetryCallOutcome.SUCCESSFUL_WITHOUT_RETRY);
		assertThat(RetryCallOutcome.of(true, 2)).isEqualTo(RetryCallOutcome.SUCCESSFUL_WITH_RETRY);
		assertThat(RetryCallOutcome.of(false, 1)).isEqualTo(RetryCallOutcome.FAILED_WITHOUT_RETRY);
		assertThat(RetryCallOutcome.of(false, 2)).isEqualTo(RetryCallOutcome.FAILED_WITH_RETRY);
	}

	@Test
	void anExhaustionIsFoundAmongSuppressedOnly() {
		IOException failure = new IOException();
		assertThat(RetriesExhaustedException.of(failure)).isNull();
		failure.addSuppressed(new IllegalStateException());
		RetriesExhaustedException exhausted = new RetriesExhaustedException("Tried", List.of(), "last");
		failure.addSuppressed(exhausted);
		assertThat(RetriesExhaustedException.of(failure)).isSameAs(exhausted);
		assertThat(exhausted.getStackTrace()).isEmpty();
	}

}
