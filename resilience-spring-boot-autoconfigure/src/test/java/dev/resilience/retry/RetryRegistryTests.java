package dev.resilience.retry;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/** The named policies, their shared budgets, and the retries the registry makes. */
class RetryRegistryTests {

	private final ManualTicker ticker = new ManualTicker();

	private final RetryPolicy budgeted = RetryPolicy.builder()
		.jitter(Jitter.NONE)
		.budget(new RetryBudgetSettings(0, Duration.ofSeconds(1), 1))
		.build();

	private final RetryRegistry registry = RetryRegistry.builder()
		.ticker(this.ticker)
		.retries((retry) -> retry.sleeper(this.ticker.sleeper()))
		.policy("partner", this.budgeted)
		.policy("billing", RetryPolicy.builder().maxRetries(1).build())
		.build();

	@Test
	void policiesAreListedInTheOrderAdded() {
		assertThat(this.registry.getNames()).containsExactly("partner", "billing");
		assertThat(this.registry.getPolicy("partner")).isSameAs(this.budgeted);
	}

	@Test
	void anUnknownNameListsTheConfiguredOnes() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.getPolicy("nope"))
			.withMessage("No retry policy named 'nope'; configured are [partner, billing]");
	}

	@Test
	void onlyPoliciesWithABudgetHaveOne() {
		assertThat(this.registry.getBudget("partner").getSettings()).isEqualTo(this.budgeted.budget());
		assertThat(this.registry.getBudget("billing")).isNull();
		assertThat(this.registry.getBudget("nope")).isNull();
	}

	@Test
	void retriesOfOneNameShareItsBudgetAndClock() {
		// A reserve of one retry per second of a one-second window: one retry in all.
		Retry first = this.registry.retry("partner", this.budgeted);
		Retry second = this.registry.retry("partner", this.budgeted.toBuilder().maxRetries(5).build());
		assertThat(attempts(first)).isEqualTo(2);
		assertThat(attempts(second)).isEqualTo(1);
		assertThat(this.ticker.sleeps()).containsExactly(Duration.ofMillis(100));
		assertThat(second.getPolicy().maxRetries()).isEqualTo(5);
		assertThat(second.getName()).isEqualTo("partner");
		this.ticker.advance(Duration.ofSeconds(1));
		assertThat(this.registry.getBudget("partner").available()).isEqualTo(1);
	}

	@Test
	void nullsAreRefused() {
		assertThatNullPointerException().isThrownBy(() -> RetryRegistry.builder().policy("x", null)).withMessage("policy");
		assertThatNullPointerException().isThrownBy(() -> RetryRegistry.builder().ticker(null)).withMessage("ticker");
		assertThatNullPointerException().isThrownBy(() -> RetryRegistry.builder().retries(null)).withMessage("retries");
	}

	@Test
	void defaultsMakePlainRetries() throws Throwable {
		RetryRegistry plain = RetryRegistry.builder().build();
		assertThat(plain.getNames()).isEmpty();
		Retry retry = plain.retry("Client.call", RetryPolicy.builder().delay(Duration.ZERO).build());
		AtomicInteger calls = new AtomicInteger();
		assertThat(retry.call(() -> calls.incrementAndGet())).isEqualTo(1);
	}

	private static int attempts(Retry retry) {
		AtomicInteger calls = new AtomicInteger();
		try {
			retry.call(() -> {
				calls.incrementAndGet();
				throw new IOException("down");
			});
		}
		catch (Throwable expected) {
			assertThat(expected).isInstanceOf(IOException.class);
		}
		return calls.get();
	}

	@Test
	void listenersGivenToEveryRetryAreTold() throws Throwable {
		List<String> names = new java.util.concurrent.CopyOnWriteArrayList<>();
		RetryRegistry withListener = RetryRegistry.builder().retries((retry) -> retry.listener(new RetryListener() {
			@Override
			public void onCallEnded(String name, RetryCallOutcome outcome, List<RetryAttempt> attempts) {
				names.add(name);
			}
		})).build();
		withListener.retry("a", RetryPolicy.builder().build()).call(() -> "ok");
		assertThat(names).containsExactly("a");
	}

}
