package dev.resilience.autoconfigure.support;

import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Settings a run-time change proposes for one name and has not applied yet. A {@link MethodBinder}
 * reads them in place of the settings its registry has for that name, so that the annotated
 * methods are checked against a change before anything of it is live.
 */
public final class ProposedSettings {

	/** No change proposed: every name's settings are its registry's. */
	public static final ProposedSettings NONE = new ProposedSettings(null, null);

	private final @Nullable String name;

	private final @Nullable Object settings;

	private ProposedSettings(@Nullable String name, @Nullable Object settings) {
		this.name = name;
		this.settings = settings;
	}

	/**
	 * Proposes settings for one name.
	 * @param name the name of the limiter, policy, poll or pool
	 * @param settings its settings after the change
	 * @return the proposal
	 */
	public static ProposedSettings of(String name, Object settings) {
		return new ProposedSettings(name, settings);
	}

	/**
	 * Returns the settings of a name as they would be after the change.
	 * @param <S> the type of the settings
	 * @param name the name
	 * @param type the type of the settings, which tells a limiter's from a policy's of the same name
	 * @param current the settings the name has now
	 * @return the proposed settings when they are for this name and type, else the current ones
	 */
	public <S> S get(String name, Class<S> type, Function<String, S> current) {
		return (name.equals(this.name) && type.isInstance(this.settings)) ? type.cast(this.settings)
				: current.apply(name);
	}

}
