package dev.resilience.poll;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.resilience.retry.Backoff;
import dev.resilience.retry.BackoffPolicy;

import static dev.resilience.poll.PollerTests.ms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/** {@link PollSettings}, {@link PollSettingsRegistry} and the values of a poll's history. */
class PollSettingsTests {

	@Test
	void defaultsAreExWaiters() {
		PollSettings defaults = PollSettings.defaults();
		assertThat(defaults.backoffPolicy()).isEqualTo(new BackoffPolicy(Backoff.LINEAR, ms(10), 2.0, Duration.ofSeconds(10)));
		assertThat(defaults.maxAttempts()).isEqualTo(5);
		assertThat(defaults.timeout()).isNull();
		assertThat(defaults.ignoreExceptions()).isFalse();
		assertThat(defaults.unlimitedAttempts()).isFalse();
	}

	@Test
	void toBuilderKeepsEverySetting() {
		PollSettings settings = PollSettings.builder()
			.delay(ms(5))
			.backoff(Backoff.EXPONENTIAL)
			.multiplier(1.5)
			.maxDelay(Duration.ofSeconds(3))
			.maxAttempts(PollSettings.UNLIMITED)
			.timeout(Duration.ofSeconds(30))
			.ignoreExceptions(true)
			.build();

		assertThat(settings.toBuilder().build()).isEqualTo(settings);
		assertThat(settings.unlimitedAttempts()).isTrue();
		assertThat(settings.backoffPolicy()).isEqualTo(new BackoffPolicy(Backoff.EXPONENTIAL, ms(5), 1.5, Duration.ofSeconds(3)));
	}

	@Test
	void oneAttemptIsTheLeast() {
		assertThat(PollSettings.builder().maxAttempts(1).build().maxAttempts()).isEqualTo(1);
		assertThatIllegalArgumentException().isThrownBy(() -> PollSettings.builder().maxAttempts(0).build())
			.withMessage("max-attempts must be at least 1, or -1 for unlimited, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> PollSettings.builder().maxAttempts(-2).build())
			.withMessage("max-attempts must be at least 1, or -1 for unlimited, but was -2");
	}

	@Test
	void unlimitedAttemptsNeedATimeout() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> PollSettings.builder().maxAttempts(PollSettings.UNLIMITED).build())
			.withMessage("unlimited max-attempts (-1) needs a timeout, or the poll could never end");
	}

	@Test
	void theTimeoutIsPositive() {
		assertThat(PollSettings.builder().timeout(Duration.ofNanos(1)).build().timeout()).isEqualTo(Duration.ofNanos(1));
		assertThatIllegalArgumentException().isThrownBy(() -> PollSettings.builder().timeout(Duration.ZERO).build())
			.withMessage("timeout must be positive, but was 0ms");
		assertThatIllegalArgumentException().isThrownBy(() -> PollSettings.builder().timeout(ms(-1)).build())
			.withMessage("timeout must be positive, but was -1ms");
	}

	@Test
	void theBackoffIsCheckedByItsPolicy() {
		assertThatIllegalArgumentException().isThrownBy(() -> PollSettings.builder().delay(Duration.ofSeconds(20)).build())
			.withMessage("max-delay (10s) must not be shorter than delay (20s)");
	}

	@Test
	void theRegistryGivesSettingsByNameAndListsTheNamesOfAnUnknownOne() {
		Map<String, PollSettings> settings = new LinkedHashMap<>();
		settings.put("export", PollSettings.builder().maxAttempts(9).build());
		settings.put("report", PollSettings.defaults());
		PollSettingsRegistry registry = PollSettingsRegistry.of(settings);
		settings.clear();

		assertThat(registry.get("export").maxAttempts()).isEqualTo(9);
		assertThat(registry.getNames()).containsExactly("export", "report");
		assertThat(registry.getAll()).containsOnlyKeys("export", "report");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.get("nope"))
			.withMessage("No poll settings named 'nope'; configured under resilience.polls are [export, report]");
	}

	@Test
	void theRegistryRefusesNullSettings() {
		Map<String, PollSettings> settings = new HashMap<>();
		settings.put("export", null);
		assertThatNullPointerException().isThrownBy(() -> PollSettingsRegistry.of(settings)).withMessage("settings");
	}

	@Test
	void anExhaustedPollWithoutAttemptsHasNoCause() {
		PollExhaustedException exhausted = new PollExhaustedException(new PollHistory<>(List.of(), Duration.ZERO, null), null);
		assertThat(exhausted).hasMessage("Tried 0 times over 0ms, but condition was never met").hasNoCause();
	}

	@Test
	void anAttemptIsNumberedFromOneAfterADelayOfZeroOrMore() {
		assertThat(new PollAttempt<>(1, Duration.ZERO, false, null, null).number()).isEqualTo(1);
		assertThatIllegalArgumentException().isThrownBy(() -> new PollAttempt<>(0, Duration.ZERO, false, null, null))
			.withMessage("The first attempt is number 1, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> new PollAttempt<>(1, ms(-1), false, null, null))
			.withMessage("delayBefore must not be negative, but was -1ms");
		assertThatNullPointerException().isThrownBy(() -> new PollAttempt<>(1, null, false, null, null));
	}

	@Test
	void anEmptyHistoryIsNotFulfilled() {
		assertThat(new PollHistory<>(List.of(), Duration.ZERO, null).fulfilled()).isFalse();
		assertThat(new PollHistory<>(List.of(new PollAttempt<>(1, Duration.ZERO, true, "x", null)), Duration.ZERO, "x")
			.fulfilled()).isTrue();
	}

}
