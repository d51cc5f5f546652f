package dev.resilience.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads startup failures, whose message naming the mistake may sit anywhere in the cause chain
 * (Spring wraps it in bean creation exceptions).
 */
public final class Failures {

	private Failures() {
	}

	/**
	 * Returns the messages of a throwable and all its causes, outermost first.
	 * @param failure the failure
	 * @return the messages
	 */
	public static List<String> messages(Throwable failure) {
		List<String> messages = new ArrayList<>();
		for (Throwable t = failure; t != null; t = (t.getCause() != t) ? t.getCause() : null) {
			messages.add(String.valueOf(t.getMessage()));
		}
		return messages;
	}

}
