package dev.resilience.autoconfigure.support;

import java.beans.PropertyDescriptor;

import org.springframework.beans.BeanUtils;

/**
 * The one format of a refused property, at startup and at run time alike: the property's full
 * name, a space, then what is wrong with it
 * ({@code resilience.rate-limiters.x.max-wait must not be negative but was PT-1S}). A message
 * about the entry as a whole, naming no single property of it, follows the entry's name and a
 * colon ({@code resilience.polls.x: unlimited max-attempts (-1) needs a timeout, ...}). An
 * {@code IllegalArgumentException} or {@code IllegalStateException} worded so that stops startup
 * is shown by the starter's failure analyzer in Spring Boot's "APPLICATION FAILED TO START"
 * report, its Description the message and its Action naming the property to correct.
 */
public final class PropertyErrors {

	private PropertyErrors() {
	}

	/**
	 * Words what is wrong with one property.
	 * @param property the property's full name, such as {@code resilience.rate-limiters.x.max-wait}
	 * @param problem what is wrong with it, such as {@code cannot be 'soon': ...}
	 * @return the message
	 */
	public static String property(String property, String problem) {
		return property + " " + problem;
	}

	/**
	 * Words what is wrong with an entry as a whole.
	 * @param entry the entry's full name, such as {@code resilience.rate-limiters.x}
	 * @param problem what is wrong with it
	 * @return the message
	 */
	public static String entry(String entry, String problem) {
		return entry + ": " + problem;
	}

	/**
	 * Names the property a settings record's message is about, or else the entry. Settings records
	 * (and a rate limiter refusing a change of its shape) begin a message about one setting with
	 * its name, as its property is spelled, then a space; so the message is about a property when
	 * its first word names a property of {@code properties}.
	 * @param entry the entry's full name, such as {@code resilience.rate-limiters.x}
	 * @param refused what the settings record threw
	 * @param properties the class the entry binds to, whose properties the message may name
	 * @return the exception to throw, with {@code refused} as its cause
	 */
	public static IllegalArgumentException named(String entry, IllegalArgumentException refused, Class<?> properties) {
		String message = String.valueOf(refused.getMessage());
		int space = message.indexOf(' ');
		if (space > 0 && isProperty(properties, message.substring(0, space))) {
			return new IllegalArgumentException(property(entry + "." + message.substring(0, space),
					message.substring(space + 1)), refused);
		}
		return new IllegalArgumentException(entry(entry, message), refused);
	}

	/** Whether {@code name}, in the kebab case of property names, is a property of the type. */
	private static boolean isProperty(Class<?> type, String name) {
		if (!name.matches("[a-z][a-z0-9]*(-[a-z0-9]+)*")) {
			return false;
		}
		StringBuilder camel = new StringBuilder(name.length());
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			camel.append((c == '-') ? Character.toUpperCase(name.charAt(++i)) : c);
		}
		PropertyDescriptor descriptor = BeanUtils.getPropertyDescriptor(type, camel.toString());
		return descriptor != null && descriptor.getReadMethod() != null
				&& descriptor.getReadMethod().getDeclaringClass() != Object.class;
	}

}
