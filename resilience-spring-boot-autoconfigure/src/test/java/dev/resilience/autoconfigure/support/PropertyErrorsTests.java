package dev.resilience.autoconfigure.support;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that a refused value is named by its property's full name, and a refusal of the entry
 * as a whole by the entry's name.
 */
class PropertyErrorsTests {

	private static final List<String> SETTINGS = List.of("max-wait", "max-delay");

	@Test
	void aMessageBeginningWithASettingNamesItsProperty() {
		IllegalArgumentException refused = new IllegalArgumentException("max-wait must not be negative but was PT-1S");
		IllegalArgumentException named = PropertyErrors.named("resilience.rate-limiters.x", refused, SETTINGS);
		assertThat(named).hasMessage("resilience.rate-limiters.x.max-wait must not be negative but was PT-1S")
			.hasCause(refused);
		assertThat(PropertyErrors.named("resilience.retries.p",
				new IllegalArgumentException("max-delay (PT1S) must not be shorter than delay (PT2S)"), SETTINGS))
			.hasMessage("resilience.retries.p.max-delay (PT1S) must not be shorter than delay (PT2S)");
	}

	@Test
	void anyOtherMessageNamesTheEntry() {
		IllegalArgumentException refused = new IllegalArgumentException(
				"a rate limiter needs at least one of token-bucket, windows or max-concurrent");
		IllegalArgumentException named = PropertyErrors.named("resilience.rate-limiters.x", refused, SETTINGS);
		assertThat(named).hasMessage(
				"resilience.rate-limiters.x: a rate limiter needs at least one of token-bucket, windows or max-concurrent")
			.hasCause(refused);
		// A setting's name inside a longer word is not that setting.
		assertThat(PropertyErrors.named("resilience.polls.p", new IllegalArgumentException("max-waits are many"),
				SETTINGS))
			.hasMessage("resilience.polls.p: max-waits are many");
	}

}
