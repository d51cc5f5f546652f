package dev.resilience.ratelimit.store;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.resilience.ratelimit.WindowAlgorithm;
import dev.resilience.ratelimit.WindowSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of {@link SlidingWindow#availableAt}, for both algorithms: never earlier than asked
 * for, and never before the last call the window admitted (first come, first served).
 */
class SlidingWindowContractTests {

	private static final long SECOND = 1_000_000_000L;

	private static final WindowSettings FIVE_PER_SECOND = new WindowSettings(5, Duration.ofSeconds(1));

	@ParameterizedTest
	@EnumSource(WindowAlgorithm.class)
	void emptyWindowAdmitsAtTheTimeAskedFor(WindowAlgorithm algorithm) {
		SlidingWindow window = SlidingWindow.create(algorithm, 0);
		assertThat(window.availableAt(FIVE_PER_SECOND, 5 * SECOND, 1)).isEqualTo(5 * SECOND);
	}

	@ParameterizedTest
	@EnumSource(WindowAlgorithm.class)
	void windowNeverAdmitsBeforeTheLastCallItAdmitted(WindowAlgorithm algorithm) {
		SlidingWindow window = SlidingWindow.create(algorithm, 0);
		window.add(FIVE_PER_SECOND, 3 * SECOND, 1, 1);
		assertThat(window.availableAt(FIVE_PER_SECOND, SECOND, 1)).isEqualTo(3 * SECOND);
	}

	@ParameterizedTest
	@EnumSource(WindowAlgorithm.class)
	void givingBackTheLastCallLetsTheNextOneFollowTheCallBeforeIt(WindowAlgorithm algorithm) {
		SlidingWindow window = SlidingWindow.create(algorithm, 0);
		window.add(FIVE_PER_SECOND, 3 * SECOND, 1, 1);
		window.add(FIVE_PER_SECOND, 4 * SECOND, 1, 2);

		window.remove(FIVE_PER_SECOND, 2, 1, 4 * SECOND);

		assertThat(window.availableAt(FIVE_PER_SECOND, SECOND, 1)).isEqualTo(3 * SECOND);
		assertThat(window.remaining(FIVE_PER_SECOND, 3 * SECOND)).isEqualTo(4);
	}

}
