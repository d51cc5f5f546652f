package dev.resilience.retry;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** What a retry and a policy builder do when not told otherwise, and the builders' chaining. */
class RetryDefaultsTests {

	@Test
	void withoutARandomSourceFullJitterDrawsFromAThreadLocalRandom() {
		// 20 delays of a random part of 1 s: a fixed draw of 0 would sleep none of them, and the
		// chance that a real draw gives one under 1 ns, or twice the same, is about 10^-8.
		ManualTicker ticker = new ManualTicker();
		RetryPolicy policy = RetryPolicy.builder()
			.backoff(Backoff.FIXED)
			.delay(Duration.ofSeconds(1))
			.jitter(Jitter.FULL)
			.maxRetries(20)
			.build();
		Retry retry = Retry.builder("spread", policy).ticker(ticker).sleeper(ticker.sleeper()).build();
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> retry.call(() -> {
			throw new IOException("down");
		}));
		List<Duration> sleeps = ticker.sleeps();
		assertThat(sleeps).hasSize(20)
			.allSatisfy((sleep) -> assertThat(sleep).isPositive().isLessThan(Duration.ofSeconds(1)));
		assertThat(sleeps.stream().distinct().count()).isGreaterThan(1);
	}

	@Test
	void backoffPolicySetsAllFourAndChains() {
		BackoffPolicy backoff = new BackoffPolicy(Backoff.LINEAR, Duration.ofMillis(7), 3.0, Duration.ofMillis(50));
		RetryPolicy policy = RetryPolicy.builder().backoffPolicy(backoff).maxRetries(2).build();
		assertThat(policy.backoff()).isEqualTo(backoff);
		assertThat(policy.maxRetries()).isEqualTo(2);
	}

}
