package dev.resilience.retry;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** A policy replaced at run time: the budget stays with its counts, is replaced, or goes. */
class RetryRegistryUpdateTests {

	private final ManualTicker ticker = new ManualTicker();

	private final RetryBudgetSettings oneASecond = new RetryBudgetSettings(0, Duration.ofSeconds(10), 1);

	private final RetryRegistry registry = RetryRegistry.builder()
		.ticker(this.ticker)
		.policy("partner", policy(3, this.oneASecond))
		.policy("billing", policy(1, null))
		.build();

	@Test
	void theSameBudgetSettingsKeepTheBudgetAndWhatItCounted() {
		RetryBudget budget = this.registry.getBudget("partner");
		assertThat(budget.tryRetry()).isTrue();
		RetryPolicy updated = policy(5, new RetryBudgetSettings(0, Duration.ofSeconds(10), 1));
		this.registry.updatePolicy("partner", updated);
		assertThat(this.registry.getPolicy("partner")).isSameAs(updated);
		assertThat(this.registry.getBudget("partner")).isSameAs(budget);
		assertThat(budget.available()).isEqualTo(9);
	}

	@Test
	void otherBudgetSettingsStartANewBudget() {
		RetryBudget old = this.registry.getBudget("partner");
		assertThat(old.tryRetry()).isTrue();
		RetryBudgetSettings twoASecond = new RetryBudgetSettings(0, Duration.ofSeconds(10), 2);
		this.registry.updatePolicy("partner", policy(3, twoASecond));
		RetryBudget budget = this.registry.getBudget("partner");
		assertThat(budget).isNotSameAs(old);
		assertThat(budget.getSettings()).isEqualTo(twoASecond);
		assertThat(budget.available()).isEqualTo(20);
	}

	@Test
	void aPolicyWithoutABudgetDropsIt() {
		this.registry.updatePolicy("partner", policy(3, null));
		assertThat(this.registry.getBudget("partner")).isNull();
		assertThat(this.registry.getPolicy("partner").budget()).isNull();
	}

	@Test
	void aPolicyThatHadNoBudgetGetsOne() {
		this.registry.updatePolicy("billing", policy(1, this.oneASecond));
		assertThat(this.registry.getBudget("billing").available()).isEqualTo(10);
		assertThat(this.registry.getBudget("partner").available()).isEqualTo(10);
		assertThat(this.registry.getNames()).containsExactly("partner", "billing");
	}

	@Test
	void retriesMadeAfterTheUpdateUseTheNewPolicyAndTheKeptBudget() {
		this.registry.updatePolicy("partner", policy(7, this.oneASecond));
		Retry retry = this.registry.retry("partner", this.registry.getPolicy("partner"));
		assertThat(retry.getPolicy().maxRetries()).isEqualTo(7);
		assertThat(this.registry.getBudget("partner").tryRetry()).isTrue();
		assertThat(this.registry.getBudget("partner").available()).isEqualTo(9);
	}

	@Test
	void aRestoredPolicyGetsBackItsBudgetWithWhatItCounted() {
		RetryPolicy before = this.registry.getPolicy("partner");
		RetryBudget budget = this.registry.getBudget("partner");
		assertThat(budget.tryRetry()).isTrue();
		this.registry.updatePolicy("partner", policy(3, new RetryBudgetSettings(0, Duration.ofSeconds(10), 2)));
		this.registry.restorePolicy("partner", before, budget);
		assertThat(this.registry.getPolicy("partner")).isSameAs(before);
		assertThat(this.registry.getBudget("partner")).isSameAs(budget);
		assertThat(budget.available()).isEqualTo(9);
		this.registry.updatePolicy("billing", policy(1, this.oneASecond));
		this.registry.restorePolicy("billing", policy(1, null), null);
		assertThat(this.registry.getBudget("billing")).isNull();
		assertThat(this.registry.getNames()).containsExactly("partner", "billing");
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.restorePolicy("nope", before, null))
			.withMessage("No retry policy named 'nope'; configured are [partner, billing]");
	}

	@Test
	void anUnknownNameCannotBeUpdated() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.updatePolicy("nope", policy(1, null)))
			.withMessage("No retry policy named 'nope'; configured are [partner, billing]");
		assertThat(this.registry.getNames()).containsExactly("partner", "billing");
	}

	private static RetryPolicy policy(int maxRetries, RetryBudgetSettings budget) {
		return RetryPolicy.builder().maxRetries(maxRetries).jitter(Jitter.NONE).budget(budget).build();
	}

}
