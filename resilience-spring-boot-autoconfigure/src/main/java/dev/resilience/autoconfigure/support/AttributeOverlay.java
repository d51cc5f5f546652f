package dev.resilience.autoconfigure.support;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.DoubleConsumer;
import java.util.function.IntConsumer;

/**
 * Lays the attributes an annotation sets over a named policy's settings, the one way every
 * binder does it, so that every annotation's attributes mean the same: an attribute the
 * annotation does not set leaves the policy's value; one it sets always wins, even when it equals
 * the built-in default ({@code maxRetries = 3} on a policy of 5 makes 3). So the annotations
 * declare "not set" markers as their defaults, never a real value:
 * <ul>
 * <li>a number: {@link #UNSET_INT} ({@code Integer.MIN_VALUE}) or {@link #UNSET_DOUBLE}
 * ({@code Double.NaN});</li>
 * <li>a duration or a text: the empty string;</li>
 * <li>an enum or a boolean: an empty array, the attribute's type being an array that takes at
 * most one value ({@code backoff = Backoff.FIXED}, {@code ignoreExceptions = true}), so that no
 * marker constant joins the enum's values;</li>
 * <li>a list of types: the empty array.</li>
 * </ul>
 * Each method calls its setter only when the attribute is set, and fails naming the method and
 * the attribute when its value cannot be read.
 */
public final class AttributeOverlay {

	/** The "not set" marker of an {@code int} attribute. */
	public static final int UNSET_INT = Integer.MIN_VALUE;

	/** The "not set" marker of a {@code double} attribute; test it with {@link Double#isNaN(double)}. */
	public static final double UNSET_DOUBLE = Double.NaN;

	private final AnnotationAttributeResolver attributes;

	private final String where;

	/**
	 * Creates an overlay of one annotation.
	 * @param attributes resolves placeholders and parses durations
	 * @param where the annotation and method, such as {@code @Retryable on Client.call()}, for
	 * messages
	 */
	public AttributeOverlay(AnnotationAttributeResolver attributes, String where) {
		this.attributes = attributes;
		this.where = where;
	}

	/**
	 * Applies an {@code int} attribute unless it is {@link #UNSET_INT}.
	 * @param value the attribute's value
	 * @param setter takes the value
	 * @return this overlay
	 */
	public AttributeOverlay integer(int value, IntConsumer setter) {
		if (value != UNSET_INT) {
			setter.accept(value);
		}
		return this;
	}

	/**
	 * Applies a {@code double} attribute unless it is {@link #UNSET_DOUBLE}.
	 * @param value the attribute's value
	 * @param setter takes the value
	 * @return this overlay
	 */
	public AttributeOverlay decimal(double value, DoubleConsumer setter) {
		if (!Double.isNaN(value)) {
			setter.accept(value);
		}
		return this;
	}

	/**
	 * Applies a duration attribute unless it is empty, resolving placeholders first.
	 * @param value the attribute's text
	 * @param name the attribute's name, for messages
	 * @param setter takes the duration
	 * @return this overlay
	 * @throws IllegalStateException naming the method and attribute when the text is no duration
	 * or is negative
	 */
	public AttributeOverlay duration(String value, String name, Consumer<Duration> setter) {
		if (!value.isBlank()) {
			setter.accept(this.attributes.duration(value, this.where + " (" + name + ")"));
		}
		return this;
	}

	/**
	 * Applies an attribute that takes at most one value, such as an enum's, unless it has none.
	 * @param <E> the type of the value
	 * @param values the attribute's values
	 * @param name the attribute's name, for messages
	 * @param setter takes the value
	 * @return this overlay
	 * @throws IllegalStateException naming the method and attribute when it has several values
	 */
	public <E> AttributeOverlay one(E[] values, String name, Consumer<E> setter) {
		if (values.length > 1) {
			throw new ResilienceConfigurationException(this.where + " (" + name + ") sets " + values.length
					+ " values, but takes one at most", "Set " + name + " to one value, or leave it unset.");
		}
		if (values.length == 1) {
			setter.accept(values[0]);
		}
		return this;
	}

	/**
	 * Applies a {@code boolean} attribute that takes at most one value unless it has none.
	 * @param values the attribute's values
	 * @param name the attribute's name, for messages
	 * @param setter takes the value
	 * @return this overlay
	 * @throws IllegalStateException naming the method and attribute when it has several values
	 */
	public AttributeOverlay flag(boolean[] values, String name, Consumer<Boolean> setter) {
		Boolean[] boxed = new Boolean[values.length];
		for (int i = 0; i < values.length; i++) {
			boxed[i] = values[i];
		}
		return one(boxed, name, setter);
	}

	/**
	 * Applies a list attribute unless it is empty.
	 * @param <E> the type of the elements
	 * @param values the attribute's values
	 * @param setter takes the values
	 * @return this overlay
	 */
	public <E> AttributeOverlay list(E[] values, Consumer<List<E>> setter) {
		if (values.length > 0) {
			setter.accept(List.of(values));
		}
		return this;
	}

}
