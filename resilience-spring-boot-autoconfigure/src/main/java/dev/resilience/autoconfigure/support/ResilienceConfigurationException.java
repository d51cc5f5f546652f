package dev.resilience.autoconfigure.support;

import org.jspecify.annotations.Nullable;

/**
 * A mistake in the starter's configuration found at startup: an annotation that names something
 * not configured, an expression that does not parse or names an argument the method lacks, a
 * fallback that does not fit. The message names the annotated method or the property and says
 * what is wrong; {@link #getAction()} says what to change. The starter's failure analyzer shows
 * both in Spring Boot's "APPLICATION FAILED TO START" report.
 */
public class ResilienceConfigurationException extends IllegalStateException {

	private final @Nullable String action;

	/**
	 * Creates the exception.
	 * @param message what is wrong, naming the annotated method or the property
	 * @param action what to change, or {@code null} to leave it to the failure analyzer
	 */
	public ResilienceConfigurationException(String message, @Nullable String action) {
		super(message);
		this.action = action;
	}

	/**
	 * Creates the exception.
	 * @param message what is wrong, naming the annotated method or the property
	 * @param action what to change, or {@code null} to leave it to the failure analyzer
	 * @param cause what was found wrong underneath
	 */
	public ResilienceConfigurationException(String message, @Nullable String action, @Nullable Throwable cause) {
		super(message, cause);
		this.action = action;
	}

	/**
	 * Returns what to change.
	 * @return the action, or {@code null} when the message says it
	 */
	public @Nullable String getAction() {
		return this.action;
	}

}
