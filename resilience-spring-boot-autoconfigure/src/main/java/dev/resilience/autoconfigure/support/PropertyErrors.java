package dev.resilience.autoconfigure.support;

import java.util.List;

/**
 * Words a value a settings record refused in the one format of bad properties: the property's
 * full name, then what is wrong with it
 * ({@code resilience.rate-limiters.x.max-wait must not be negative but was PT-1S}). A message
 * about the entry as a whole, naming no single property of it, follows the entry's name and a
 * colon ({@code resilience.polls.x: unlimited max-attempts (-1) needs a timeout, ...}).
 */
public final class PropertyErrors {

	private PropertyErrors() {
	}

	/**
	 * Names the property a settings record's message is about, or else the entry. Settings records
	 * begin a message about one setting with its name, as its property is spelled, so the message
	 * names the property when it begins with one of {@code settings} and a space.
	 * @param entry the entry's full name, such as {@code resilience.rate-limiters.x}
	 * @param refused what the settings record threw
	 * @param settings the names of the entry's properties the record checks
	 * @return the exception to throw, with {@code refused} as its cause
	 */
	public static IllegalArgumentException named(String entry, IllegalArgumentException refused,
			List<String> settings) {
		String message = String.valueOf(refused.getMessage());
		for (String setting : settings) {
			if (message.startsWith(setting + " ")) {
				return new IllegalArgumentException(entry + "." + message, refused);
			}
		}
		return new IllegalArgumentException(entry + ": " + message, refused);
	}

}
