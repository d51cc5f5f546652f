package dev.resilience.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;

import static org.assertj.core.api.Assertions.assertThat;

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

	/**
	 * Returns a check that the context failed to start with a message, somewhere in the cause
	 * chain, that begins as given.
	 * @param start how the message begins
	 * @return the check, to pass to {@code ApplicationContextRunner.run}
	 */
	public static ContextConsumer<AssertableApplicationContext> startupFailedWith(String start) {
		return (context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure()))
				.anySatisfy((message) -> assertThat(message).startsWith(start));
		};
	}

}
