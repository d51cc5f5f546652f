package dev.resilience.autoconfigure.support;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rewrites the messages of the API packages for properties. Their settings are named as in Java
 * and in the annotations ({@code maxAttempts}); a property is named in kebab-case
 * ({@code max-attempts}), and a message about one must say so.
 */
public final class PropertyNames {

	/** A camelCase word: lower-case letters, then at least one upper-case letter. */
	private static final Pattern CAMEL_CASE = Pattern.compile("\\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\\b");

	private PropertyNames() {
	}

	/**
	 * Rewrites every camelCase word of a message in kebab-case: {@code maxDelay must not be
	 * shorter than delay} becomes {@code max-delay must not be shorter than delay}. Class names
	 * and durations ({@code IOException}, {@code PT1S}) begin with an upper-case letter and stay.
	 * @param message a message naming settings
	 * @return the message naming properties
	 */
	public static String inMessage(String message) {
		Matcher matcher = CAMEL_CASE.matcher(message);
		StringBuilder result = new StringBuilder();
		while (matcher.find()) {
			String kebab = matcher.group().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
			matcher.appendReplacement(result, Matcher.quoteReplacement(kebab));
		}
		matcher.appendTail(result);
		return result.toString();
	}

}
