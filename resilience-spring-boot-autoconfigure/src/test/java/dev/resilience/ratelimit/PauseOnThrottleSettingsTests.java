package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The settings of pausing on throttle signals: their checks name the property, and a throttle's
 * wait is applied within {@code max-pause}.
 */
class PauseOnThrottleSettingsTests {

	private static PauseOnThrottleSettings settings(Set<Integer> statuses, Duration defaultPause, Duration maxPause,
			double jitter) {
		return new PauseOnThrottleSettings(true, statuses, defaultPause, maxPause, jitter);
	}

	@Test
	void valuesOutOfRangeNameTheirProperty() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> settings(Set.of(429, 99), Duration.ofSeconds(1), Duration.ofMinutes(1), 0.1))
			.withMessage("pause-on-throttle.statuses must hold HTTP statuses (100 to 599) but held 99");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> settings(Set.of(600), Duration.ofSeconds(1), Duration.ofMinutes(1), 0.1))
			.withMessageContaining("held 600");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> settings(Set.of(429), Duration.ZERO, Duration.ofMinutes(1), 0.1))
			.withMessage("pause-on-throttle.default-pause must be positive but was 0ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> settings(Set.of(429), Duration.ofSeconds(5), Duration.ofSeconds(4), 0.1))
			.withMessage("pause-on-throttle.max-pause (4s) must not be shorter than pause-on-throttle.default-pause (5s)");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> settings(Set.of(429), Duration.ofSeconds(1), Duration.ofMinutes(1), 1.5))
			.withMessage("pause-on-throttle.resume-jitter must be between 0 and 1 but was 1.5");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> settings(Set.of(429), Duration.ofSeconds(1), Duration.ofMinutes(1), -0.1));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> settings(Set.of(429), Duration.ofSeconds(1), Duration.ofMinutes(1), Double.NaN));
	}

	@Test
	void theBoundsThemselvesAreAccepted() {
		PauseOnThrottleSettings settings = settings(Set.of(100, 599), Duration.ofSeconds(1), Duration.ofSeconds(1), 1);

		assertThat(settings.statuses()).containsExactlyInAnyOrder(100, 599);
		assertThat(settings(Set.of(429), Duration.ofSeconds(1), Duration.ofSeconds(1), 0).resumeJitter()).isZero();
	}

	@Test
	void aThrottlesWaitIsAppliedWithinMaxPauseAndTheDefaultWhenItNamesNone() {
		PauseOnThrottleSettings settings = settings(Set.of(429), Duration.ofSeconds(2), Duration.ofSeconds(30), 0.1);

		assertThat(settings.pauseFor(Throttle.retryAfter(Duration.ofSeconds(10)))).isEqualTo(Duration.ofSeconds(10));
		assertThat(settings.pauseFor(Throttle.retryAfter(Duration.ofSeconds(30)))).isEqualTo(Duration.ofSeconds(30));
		assertThat(settings.pauseFor(Throttle.rateLimitField(Duration.ofHours(1)))).isEqualTo(Duration.ofSeconds(30));
		assertThat(settings.pauseFor(Throttle.unspecified())).isEqualTo(Duration.ofSeconds(2));
		assertThat(settings.maxPauseNanos()).isEqualTo(30_000_000_000L);
	}

	@Test
	void aThrottleNamesItsWaitExactlyWhenItsCauseSaysSo() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Throttle(null, Throttle.Cause.RETRY_AFTER));
		assertThatIllegalArgumentException().isThrownBy(() -> new Throttle(Duration.ofSeconds(1), Throttle.Cause.DEFAULT));
		assertThatIllegalArgumentException().isThrownBy(() -> Throttle.manual(Duration.ofSeconds(-1)));
		assertThat(Throttle.unspecified().requested()).isNull();
		assertThat(Throttle.Cause.RATELIMIT_FIELD.tag()).isEqualTo("ratelimit-field");
	}

}
