package dev.resilience.autoconfigure.actuate;

import java.time.Duration;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.DurationText;

/**
 * Writes settings for the endpoint and the events as {@code application.yml} takes them, so that
 * what {@code GET} shows can be posted back unchanged: an enum value in kebab case
 * ({@code fail-open}, {@code exponential}) and a duration as {@link DurationText} writes it
 * ({@code 250ms}, {@code 5s}).
 */
final class SettingsText {

	private SettingsText() {
	}

	static String of(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	static String of(Duration duration) {
		return DurationText.of(duration);
	}

	static @Nullable String ofNullable(@Nullable Duration duration) {
		return (duration != null) ? DurationText.of(duration) : null;
	}

}
