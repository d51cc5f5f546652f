package dev.resilience.internal;

import java.time.Duration;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Writes settings as {@code application.yml} takes them, for the endpoint, the events, messages
 * and startup reports alike, so that what {@code GET} shows can be posted back unchanged: an enum value in kebab case
 * ({@code fail-open}, {@code exponential}) and a duration as {@link DurationText} writes it
 * ({@code 250ms}, {@code 5s}).
 */
public final class SettingsText {

	private SettingsText() {
	}

	/**
	 * Writes an enum value in kebab case.
	 * @param value the value
	 * @return its spelling in {@code application.yml}
	 */
	public static String of(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * Writes a duration as {@link DurationText} does.
	 * @param duration the duration
	 * @return its spelling in {@code application.yml}
	 */
	public static String of(Duration duration) {
		return DurationText.of(duration);
	}

	/**
	 * Writes a duration as {@link #of(Duration)} does, or {@code null} for none.
	 * @param duration the duration, or {@code null}
	 * @return its spelling, or {@code null}
	 */
	public static @Nullable String ofNullable(@Nullable Duration duration) {
		return (duration != null) ? DurationText.of(duration) : null;
	}

}
