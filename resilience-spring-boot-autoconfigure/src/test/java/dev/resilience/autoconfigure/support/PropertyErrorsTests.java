package dev.resilience.autoconfigure.support;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that a refused value is named by its property's full name, and a refusal of the entry
 * as a whole by the entry's name.
 */
class PropertyErrorsTests {

	@Test
	void aMessageBeginningWithAPropertyOfTheEntryNamesThatProperty() {
		IllegalArgumentException refused = new IllegalArgumentException("max-wait must not be negative but was PT-1S");
		IllegalArgumentException named = PropertyErrors.named("resilience.rate-limiters.x", refused, Entry.class);
		assertThat(named).hasMessage("resilience.rate-limiters.x.max-wait must not be negative but was PT-1S")
			.hasCause(refused);
		assertThat(PropertyErrors.named("resilience.retries.p",
				new IllegalArgumentException("max-delay (PT1S) must not be shorter than delay (PT2S)"), Entry.class))
			.hasMessage("resilience.retries.p.max-delay (PT1S) must not be shorter than delay (PT2S)");
		// a property with a getter only, as a nested group has
		assertThat(PropertyErrors.named("resilience.rate-limiters.x",
				new IllegalArgumentException("token-bucket cannot change from none to set"), Entry.class))
			.hasMessage("resilience.rate-limiters.x.token-bucket cannot change from none to set");
	}

	@Test
	void anyOtherMessageNamesTheEntry() {
		IllegalArgumentException refused = new IllegalArgumentException(
				"a rate limiter needs at least one of token-bucket, windows or max-concurrent");
		IllegalArgumentException named = PropertyErrors.named("resilience.rate-limiters.x", refused, Entry.class);
		assertThat(named).hasMessage(
				"resilience.rate-limiters.x: a rate limiter needs at least one of token-bucket, windows or max-concurrent")
			.hasCause(refused);
		// A property's name inside a longer word is not that property.
		assertThat(PropertyErrors.named("resilience.polls.p", new IllegalArgumentException("max-waits are many"),
				Entry.class))
			.hasMessage("resilience.polls.p: max-waits are many");
		// Nor is a word of another case, an element of a list, getClass(), or a message of one word.
		assertThat(PropertyErrors.named("resilience.polls.p", new IllegalArgumentException("maxWait is wrong"),
				Entry.class))
			.hasMessage("resilience.polls.p: maxWait is wrong");
		assertThat(PropertyErrors.named("resilience.polls.p",
				new IllegalArgumentException("max-wait[0] and max-wait[1] clash"), Entry.class))
			.hasMessage("resilience.polls.p: max-wait[0] and max-wait[1] clash");
		assertThat(PropertyErrors.named("resilience.polls.p", new IllegalArgumentException("class is wrong"),
				Entry.class))
			.hasMessage("resilience.polls.p: class is wrong");
		assertThat(PropertyErrors.named("resilience.polls.p", new IllegalArgumentException("max-wait"), Entry.class))
			.hasMessage("resilience.polls.p: max-wait");
	}

	@Test
	void aPropertyIsNamedBeforeWhatIsWrongAndAnEntryBeforeAColon() {
		assertThat(PropertyErrors.property("resilience.rate-limiters.x.max-wait", "cannot be 'soon'"))
			.isEqualTo("resilience.rate-limiters.x.max-wait cannot be 'soon'");
		assertThat(PropertyErrors.entry("resilience.rate-limiters.x", "cannot be shown"))
			.isEqualTo("resilience.rate-limiters.x: cannot be shown");
	}

	/** The properties of an entry, as a properties class has them. */
	static class Entry {

		private Duration maxWait = Duration.ZERO;

		private Duration maxDelay = Duration.ZERO;

		private final Object tokenBucket = new Object();

		public Duration getMaxWait() {
			return this.maxWait;
		}

		public void setMaxWait(Duration maxWait) {
			this.maxWait = maxWait;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public Object getTokenBucket() {
			return this.tokenBucket;
		}

	}

}
