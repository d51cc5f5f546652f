package dev.resilience.autoconfigure.support;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link PropertyNames}: settings named in a message become properties. */
class PropertyNamesTests {

	@Test
	void camelCaseWordsBecomeKebabCase() {
		assertThat(PropertyNames.inMessage("maxDelay (PT1S) must not be shorter than delay (PT2S)"))
			.isEqualTo("max-delay (PT1S) must not be shorter than delay (PT2S)");
		assertThat(PropertyNames.inMessage("minRetriesPerSecond must not be negative, but was -1"))
			.isEqualTo("min-retries-per-second must not be negative, but was -1");
		assertThat(PropertyNames.inMessage("unlimited maxAttempts (-1) needs a timeout"))
			.isEqualTo("unlimited max-attempts (-1) needs a timeout");
	}

	@Test
	void classNamesDurationsAndPlainWordsStay() {
		assertThat(PropertyNames.inMessage("retry-on names java.io.IOException, not PT0.5S or $1"))
			.isEqualTo("retry-on names java.io.IOException, not PT0.5S or $1");
	}

}
