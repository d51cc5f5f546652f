package dev.resilience.poll;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Named poll settings, as configured under {@code resilience.polls.<name>} and named by
 * {@link PollUntil#name()}. Thread safe; the settings of a name can change at run time.
 */
public final class PollSettingsRegistry {

	/** Replaced whole, copied on write, when settings change at run time. */
	private volatile Map<String, PollSettings> settings;

	private PollSettingsRegistry(Map<String, PollSettings> settings) {
		this.settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
	}

	/**
	 * Returns a registry of the given settings, kept in the map's order.
	 * @param settings the settings by name
	 * @return the registry
	 */
	public static PollSettingsRegistry of(Map<String, PollSettings> settings) {
		settings.forEach((name, value) -> {
			Objects.requireNonNull(name, "name");
			Objects.requireNonNull(value, "settings");
		});
		return new PollSettingsRegistry(settings);
	}

	/**
	 * Returns the settings of one name.
	 * @param name the name
	 * @return the settings
	 * @throws IllegalArgumentException if no settings have that name, listing the names that do
	 */
	public PollSettings get(String name) {
		PollSettings found = this.settings.get(name);
		if (found == null) {
			throw new IllegalArgumentException("No poll settings named '" + name + "'; configured under resilience.polls are "
					+ this.settings.keySet());
		}
		return found;
	}

	/**
	 * Replaces the settings of one name at run time; polls begun afterwards use them.
	 * @param name the name
	 * @param settings the new settings
	 * @throws IllegalArgumentException if no settings have that name, listing the names that do
	 */
	public synchronized void update(String name, PollSettings settings) {
		get(name);
		Map<String, PollSettings> all = new LinkedHashMap<>(this.settings);
		all.put(name, Objects.requireNonNull(settings, "settings"));
		this.settings = Collections.unmodifiableMap(all);
	}

	/**
	 * Returns the configured names, in order.
	 * @return the names
	 */
	public Set<String> getNames() {
		return this.settings.keySet();
	}

	/**
	 * Returns every setting by name, in order.
	 * @return the settings
	 */
	public Map<String, PollSettings> getAll() {
		return this.settings;
	}

}
