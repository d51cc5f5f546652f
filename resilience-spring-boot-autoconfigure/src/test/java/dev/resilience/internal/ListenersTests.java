package dev.resilience.internal;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Listeners}: one listener that throws neither stops the others nor escapes. */
class ListenersTests {

	@Test
	void aListenerThatThrowsIsSkippedAndTheNextToldStill() {
		List<String> told = new ArrayList<>();
		List<String> listeners = List.of("first", "broken", "last");
		Listeners.tell(listeners, (listener) -> {
			if (listener.equals("broken")) {
				throw new IllegalStateException("broken");
			}
			told.add(listener);
		}, System.getLogger(ListenersTests.class.getName()), "Test listener");
		assertThat(told).containsExactly("first", "last");
	}

}
