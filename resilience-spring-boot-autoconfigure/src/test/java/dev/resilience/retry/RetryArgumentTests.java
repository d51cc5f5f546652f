package dev.resilience.retry;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** {@link Retry#call} checks its arguments before the first attempt, as {@code callAsync} does. */
class RetryArgumentTests {

	private final ManualTicker ticker = new ManualTicker(5_000_000_000L);

	private final List<String> events = new ArrayList<>();

	@Test
	void aNullCallIsRejectedAtOnceRatherThanRetriedAsAFailingAttempt() {
		Retry retry = Retry.builder("test", RetryPolicy.builder().jitter(Jitter.NONE).build())
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.listener(new RetryListener() {

				@Override
				public void onAttempt(String name, RetryAttempt attempt) {
					RetryArgumentTests.this.events.add(name + " " + attempt.number() + " " + attempt.outcome());
				}

			})
			.build();

		// The NullPointerException of calling a null call used to count as a failed attempt: it was
		// retried three times, sleeping 100, 200 and 400 ms, and thrown with an exhaustion.
		Throwable thrown = catchThrowable(() -> retry.call(null));
		assertThat(this.ticker.sleeps()).isEmpty();
		assertThat(this.events).isEmpty();
		assertThat(thrown).isInstanceOf(NullPointerException.class).hasMessage("call").hasNoSuppressedExceptions();
	}

}
