package dev.resilience.autoconfigure.refresh;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.core.env.ConfigurableEnvironment;

import dev.resilience.autoconfigure.poll.PollProperties;
import dev.resilience.autoconfigure.poll.PolledMethods;
import dev.resilience.autoconfigure.pool.ConnectionPoolProperties;
import dev.resilience.autoconfigure.pool.WithConnectionMethods;
import dev.resilience.autoconfigure.ratelimit.RateLimitedMethods;
import dev.resilience.autoconfigure.ratelimit.RateLimiterProperties;
import dev.resilience.autoconfigure.retry.RetryProperties;
import dev.resilience.autoconfigure.retry.RetryableMethods;
import dev.resilience.autoconfigure.support.AnnotatedMethods;
import dev.resilience.autoconfigure.support.PropertyErrors;
import dev.resilience.autoconfigure.support.ProposedSettings;
import dev.resilience.autoconfigure.web.client.HttpClientRoutes;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.retry.RetryBudget;
import dev.resilience.retry.RetryPolicy;
import dev.resilience.retry.RetryRegistry;

/**
 * Changes the settings of a named rate limiter, retry policy, poll or pool at run time, from its
 * properties: those of the environment now, with the values set through the endpoint laid over
 * them (they stay until a restart). The properties are bound and mapped to settings exactly as at
 * startup, so a wrong value is refused with the message startup would give and the old settings
 * stay; the annotated methods that use the settings are read again, and a rate limiter's
 * {@code http-client} routes are changed with its settings, all or nothing.
 */
public class ResilienceSettingsUpdater {

	/**
	 * Properties that take effect only beside a value of another, as the properties classes refuse
	 * them. A limiter's {@code pause-on-throttle.statuses} stays: an adaptive limit reads it too.
	 */
	private static final List<Dependency> DEPENDENCIES = List.of(
			new Dependency(Kind.RATE_LIMITER, "max-concurrent", (value) -> !RateLimiterProperties.isAdaptive(value),
					List.of("adaptive-concurrency")),
			new Dependency(Kind.RATE_LIMITER, "max-concurrent", "0"::equals, List.of("lease-timeout")),
			new Dependency(Kind.RATE_LIMITER, "pause-on-throttle.enabled", "false"::equalsIgnoreCase,
					List.of("pause-on-throttle.default-pause", "pause-on-throttle.max-pause",
							"pause-on-throttle.resume-jitter")),
			new Dependency(Kind.RETRY, "backoff", (value) -> !"exponential".equalsIgnoreCase(value),
					List.of("multiplier")),
			new Dependency(Kind.RETRY, "backoff", "fixed"::equalsIgnoreCase, List.of("max-delay")),
			new Dependency(Kind.POLL, "backoff", (value) -> !"exponential".equalsIgnoreCase(value),
					List.of("multiplier")),
			new Dependency(Kind.POLL, "backoff", "fixed"::equalsIgnoreCase, List.of("max-delay")));

	private final ConfigurableEnvironment environment;

	private final Map<Kind, Target<?, ?>> targets = new LinkedHashMap<>();

	/** The values set through the endpoint, by the prefix of their limiter, policy, poll or pool. */
	private final Map<ConfigurationPropertyName, Map<String, String>> overrides = new ConcurrentHashMap<>();

	/**
	 * Creates the updater.
	 * @param environment where the properties are bound from
	 * @param rateLimiters the rate limiters
	 * @param retries the retry policies
	 * @param polls the named poll settings
	 * @param pools the pools
	 * @param rateLimitedMethods the methods whose limits are read from the rate limiters
	 * @param retryableMethods the methods whose retries are made from the policies
	 * @param polledMethods the methods whose polls are made from the poll settings
	 * @param withConnectionMethods the methods whose deadlines are read from the pools
	 * @param httpClientRoutes the limiters of the HTTP clients' hosts, when some limiter had
	 * {@code http-client} properties at startup
	 */
	public ResilienceSettingsUpdater(ConfigurableEnvironment environment, ObjectProvider<RateLimiterRegistry> rateLimiters,
			ObjectProvider<RetryRegistry> retries, ObjectProvider<PollSettingsRegistry> polls,
			ObjectProvider<ConnectionPool<?>> pools, ObjectProvider<RateLimitedMethods> rateLimitedMethods,
			ObjectProvider<RetryableMethods> retryableMethods, ObjectProvider<PolledMethods> polledMethods,
			ObjectProvider<WithConnectionMethods> withConnectionMethods,
			ObjectProvider<HttpClientRoutes> httpClientRoutes) {
		this.environment = environment;
		RateLimiterRegistry limiters = rateLimiters.getIfAvailable();
		if (limiters != null) {
			HttpClientRoutes routes = httpClientRoutes.getIfAvailable();
			this.targets.put(Kind.RATE_LIMITER, new Target<>(RateLimiterProperties.class, limiters::getNames,
					(name) -> limiters.get(name).getSettings(), RateLimiterProperties::toSettings,
					limiters::updateSettings, rateLimitedMethods.getIfAvailable(), null,
					(properties, name) -> httpClient(routes, properties, name)));
		}
		RetryRegistry retryRegistry = retries.getIfAvailable();
		if (retryRegistry != null) {
			// A refused change puts back the budget too, with what it counted.
			this.targets.put(Kind.RETRY, new Target<>(RetryProperties.class, retryRegistry::getNames,
					retryRegistry::getPolicy, RetryProperties::toSettings, retryRegistry::updatePolicy,
					retryableMethods.getIfAvailable(), (name) -> {
						RetryPolicy policy = retryRegistry.getPolicy(name);
						RetryBudget budget = retryRegistry.getBudget(name);
						return () -> retryRegistry.restorePolicy(name, policy, budget);
					}));
		}
		PollSettingsRegistry pollRegistry = polls.getIfAvailable();
		if (pollRegistry != null) {
			this.targets.put(Kind.POLL, new Target<>(PollProperties.class, pollRegistry::getNames, pollRegistry::get,
					PollProperties::toSettings, pollRegistry::update, polledMethods.getIfAvailable()));
		}
		// Only the pools of resilience.pools: a pool a user made as a bean has no properties.
		Map<String, @Nullable String> factories = new LinkedHashMap<>();
		Binder.get(environment)
			.bind(Kind.POOL.prefix, Bindable.mapOf(String.class, ConnectionPoolProperties.class))
			.ifBound((bound) -> bound.forEach((name, properties) -> factories.put(name, properties.getFactory())));
		Map<String, ConnectionPool<?>> poolsByName = new LinkedHashMap<>();
		pools.orderedStream()
			.filter((pool) -> factories.containsKey(pool.getName()))
			.forEach((pool) -> poolsByName.put(pool.getName(), pool));
		if (!poolsByName.isEmpty()) {
			this.targets.put(Kind.POOL, new Target<>(ConnectionPoolProperties.class, poolsByName::keySet,
					(name) -> poolsByName.get(name).getSettings(), (properties, name) -> {
						if (!Objects.equals(properties.getFactory(), factories.get(name))) {
							String factory = Kind.POOL.prefix + "." + name + ".factory";
							throw new IllegalArgumentException(PropertyErrors.property(factory, "cannot change from "
									+ factories.get(name) + " to " + properties.getFactory()
									+ " at run time, as the pool holds its connections; restart to change it"));
						}
						return properties.toSettings(name);
					}, (name, settings) -> poolsByName.get(name).updateSettings(settings),
					withConnectionMethods.getIfAvailable()));
		}
	}

	/**
	 * Checks a limiter's {@code http-client} properties and gives what applies them. Without routes,
	 * no client was decorated at startup: hosts set now would silently go unlimited.
	 */
	private static Runnable httpClient(@Nullable HttpClientRoutes routes, RateLimiterProperties properties,
			String name) {
		RateLimiterProperties.HttpClient httpClient = properties.getHttpClient();
		if (routes != null) {
			return routes.prepare(name, httpClient);
		}
		if (!httpClient.getHosts().isEmpty() || httpClient.getKey() != null) {
			throw new IllegalArgumentException(PropertyErrors.property(
					Kind.RATE_LIMITER.prefix(name) + ".http-client." + (httpClient.getHosts().isEmpty() ? "key" : "hosts"),
					"cannot be set at run time, as no rate limiter had http-client hosts when the application "
							+ "started, so no HTTP client was given the limits; restart to set it"));
		}
		return () -> {
		};
	}

	/**
	 * Changes one limiter's, policy's, poll's or pool's settings: its properties now, with the
	 * given values laid over them and over those set before, bound and checked as at startup.
	 * @param name the name of the limiter, policy, poll or pool
	 * @param properties values by paths relative to its properties, such as
	 * {@code windows[0].limit} or {@code max-wait}, written as in {@code application.yml}
	 * @return what was changed
	 * @throws NoSuchElementException if nothing has that name
	 * @throws IllegalArgumentException naming the property when a value is wrong or unknown, or
	 * when the name is used by more than one kind; nothing changes then
	 */
	public synchronized Change update(String name, Map<String, String> properties) {
		Kind kind = kindOf(name);
		ConfigurationPropertyName prefix = kind.prefix(name);
		Map<String, String> merged = new LinkedHashMap<>(this.overrides.getOrDefault(prefix, Map.of()));
		Set<ConfigurationPropertyName> requested = new HashSet<>();
		properties.forEach((path, value) -> {
			String property = prefix + "." + path;
			if (!ConfigurationPropertyName.isValid(property)) {
				throw new IllegalArgumentException(PropertyErrors.property(property, "is not a property name; write "
						+ "paths as in application.properties, such as windows[0].limit or max-wait"));
			}
			ConfigurationPropertyName requestedName = ConfigurationPropertyName.of(property);
			requested.add(requestedName);
			// A list set whole ("retry-on") and by element ("retry-on[0]") is one property: the later
			// replaces the earlier (Spring Boot would bind the whole value and ignore the element).
			merged.keySet().removeIf((earlierPath) -> {
				ConfigurationPropertyName earlier = prefix.append(earlierPath);
				return earlier.isAncestorOf(requestedName) || requestedName.isAncestorOf(earlier);
			});
			// Kept by the property's canonical path: "windows[0]..limit" names windows[0].limit too,
			// and two spellings of one property must not both stay, leaving which one binds to chance.
			merged.put(requestedName.subName(prefix.getNumberOfElements()).toString(),
					Objects.requireNonNull(value, () -> PropertyErrors.property(property, "has no value")));
		});
		apply(kind, name, merged, requested);
		this.overrides.put(prefix, merged);
		return new Change(kind, name);
	}

	/**
	 * Applies the properties of the environment now to every limiter, policy, poll and pool that
	 * one of the changed keys belongs to. A change that is wrong is refused, and its old settings
	 * stay; every other change is made.
	 * @param keys the properties that changed
	 * @return the messages of the refused changes, empty when all were made
	 */
	public synchronized List<String> refresh(Set<String> keys) {
		List<String> refused = new ArrayList<>();
		this.targets.forEach((kind, target) -> {
			for (String name : target.names().get()) {
				ConfigurationPropertyName prefix = kind.prefix(name);
				if (keys.stream().anyMatch((key) -> kind.owns(ConfigurationPropertyName.adapt(key, '.'), name))) {
					try {
						apply(kind, name, this.overrides.getOrDefault(prefix, Map.of()), Set.of());
					}
					catch (IllegalArgumentException | IllegalStateException ex) {
						refused.add(ex.getMessage());
					}
				}
			}
		});
		return refused;
	}

	private Kind kindOf(String name) {
		List<Kind> kinds = this.targets.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().names().get().contains(name))
			.map(Map.Entry::getKey)
			.toList();
		if (kinds.isEmpty()) {
			throw new NoSuchElementException("No rate limiter, retry policy, poll or pool is named '" + name + "'");
		}
		if (kinds.size() > 1) {
			throw new IllegalArgumentException("'" + name + "' names more than one of " + kinds.stream()
				.map((kind) -> kind.prefix + "." + name)
				.toList() + "; rename one to change it at run time");
		}
		return kinds.get(0);
	}

	private void apply(Kind kind, String name, Map<String, String> overrides, Set<ConfigurationPropertyName> requested) {
		bindAndApply(Objects.requireNonNull(this.targets.get(kind)), kind, name, overrides, requested);
	}

	private <P, S> void bindAndApply(Target<P, S> target, Kind kind, String name, Map<String, String> overrides,
			Set<ConfigurationPropertyName> requested) {
		ConfigurationPropertyName prefix = kind.prefix(name);
		P properties = bind(target.type(), kind, name, overrides, requested);
		S settings = target.mapping().toSettings(properties, name);
		// checked before anything changes, applied once everything else is
		Runnable companion = target.companion().prepare(properties, name);
		AnnotatedMethods<?> methods = target.methods();
		if (methods != null) {
			try {
				// before the change is made, so that a change a method refuses is never live
				methods.check(ProposedSettings.of(name, settings));
			}
			catch (RuntimeException ex) {
				throw refusedByMethod(prefix, requested, ex);
			}
		}
		Runnable restore = target.snapshot(name);
		try {
			target.update().accept(name, settings);
		}
		catch (IllegalArgumentException ex) {
			// a setting that cannot change at run time, named as its property
			throw PropertyErrors.named(prefix.toString(), ex, target.type());
		}
		catch (IllegalStateException ex) {
			throw new IllegalStateException(PropertyErrors.entry(prefix.toString(), String.valueOf(ex.getMessage())), ex);
		}
		if (methods != null) {
			try {
				methods.rebind();
			}
			catch (RuntimeException ex) {
				// only when a registry keeps other settings than it was given, as the check saw the same
				restore.run();
				throw new IllegalArgumentException(PropertyErrors.entry(prefix.toString(), String.valueOf(ex.getMessage())),
						ex);
			}
		}
		companion.run();
	}

	/**
	 * Words a change an annotated method refuses: naming the property changed, when the change
	 * set one, else the entry, then the method's message.
	 */
	private static IllegalArgumentException refusedByMethod(ConfigurationPropertyName prefix,
			Set<ConfigurationPropertyName> requested, RuntimeException refused) {
		String message = String.valueOf(refused.getMessage());
		return new IllegalArgumentException((requested.size() == 1)
				? PropertyErrors.property(requested.iterator().next().toString(), "cannot take this value: " + message)
				: PropertyErrors.entry(prefix.toString(), message), refused);
	}

	/**
	 * Binds the properties under {@code prefix} from one source: every value the environment has
	 * there now (the first source that has a property wins, as in the environment), with the
	 * overrides over them. One source, because a list (such as {@code windows}) binds from the
	 * first source that has any of its elements: laid over the environment, an override of
	 * {@code windows[0].limit} would lose {@code windows[0].period}. A property is the name's when
	 * Spring Boot binds it to that name's entry however it is spelt ({@code partnerApi.max-wait} or
	 * {@code [partnerApi].max-wait}); it is kept under {@code prefix}.
	 */
	private <P> P bind(Class<P> type, Kind kind, String entry, Map<String, String> overrides,
			Set<ConfigurationPropertyName> requested) {
		ConfigurationPropertyName prefix = kind.prefix(entry);
		Map<String, Object> values = new LinkedHashMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.filter((property) -> kind.owns(property, entry)).forEach((property) -> {
					ConfigurationProperty value = iterable.getConfigurationProperty(property);
					if (value != null && property.getNumberOfElements() > prefix.getNumberOfElements()) {
						values.putIfAbsent(prefix.append(property.subName(prefix.getNumberOfElements())).toString(),
								value.getValue());
					}
				});
			}
		}
		overrides.forEach((path, value) -> {
			// A value of the environment at a list's own name (retry-on=A,B) would be bound instead
			// of an element set here (retry-on[0]), and one at an element instead of a whole list.
			ConfigurationPropertyName overridden = prefix.append(path);
			values.keySet().removeIf((name) -> {
				ConfigurationPropertyName bound = ConfigurationPropertyName.of(name);
				return bound.isAncestorOf(overridden) || overridden.isAncestorOf(bound);
			});
		});
		overrides.forEach((path, value) -> values.put(prefix + "." + path, value));
		setAsideInapplicable(kind, prefix, overrides, requested, values);
		Set<ConfigurationPropertyName> bound = new HashSet<>();
		Binder binder = new Binder(List.of(new MapConfigurationPropertySource(values)),
				new PropertySourcesPlaceholdersResolver(this.environment));
		P properties;
		try {
			properties = binder.bindOrCreate(prefix, Bindable.of(type), new AbstractBindHandler() {

				@Override
				public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
						Object result) {
					bound.add(name);
					return result;
				}

			});
		}
		catch (BindException ex) {
			ConfigurationProperty property = ex.getProperty();
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			while (cause.getCause() != null) {
				cause = cause.getCause();
			}
			throw new IllegalArgumentException(PropertyErrors.property(
					((property != null) ? property.getName() : ex.getName()).toString(),
					"cannot be " + ((property != null) ? "'" + property.getValue() + "'" : "bound") + ": "
							+ cause.getMessage()),
					ex);
		}
		for (ConfigurationPropertyName name : requested) {
			if (!bound.contains(name)) {
				throw new IllegalArgumentException(PropertyErrors.property(name.toString(), "does not exist"));
			}
		}
		return properties;
	}

	/**
	 * Leaves out the values (the environment's and those set here before) of the properties that a
	 * value set here leaves without effect, such as a limiter's {@code adaptive-concurrency} once
	 * its {@code max-concurrent} is set here to a number: they would be refused, and as nothing set
	 * here can be unset before a restart, a limiter once adaptive could never go back to a fixed
	 * limit. They apply again when the value set here is set back. Values of those properties set
	 * in the same change stay, and are refused.
	 */
	private static void setAsideInapplicable(Kind kind, ConfigurationPropertyName prefix, Map<String, String> overrides,
			Set<ConfigurationPropertyName> requested, Map<String, Object> values) {
		for (Dependency dependency : DEPENDENCIES) {
			String value = overrides.get(dependency.property());
			if (dependency.kind() != kind || value == null || !dependency.leavesWithoutEffect().test(value.strip())) {
				continue;
			}
			for (String dependent : dependency.dependents()) {
				ConfigurationPropertyName set = prefix.append(dependent);
				values.keySet().removeIf((name) -> {
					ConfigurationPropertyName property = ConfigurationPropertyName.of(name);
					return (set.equals(property) || set.isAncestorOf(property)) && !requested.contains(property);
				});
			}
		}
	}

	/**
	 * Properties that a value of another leaves without effect.
	 *
	 * @param kind what they belong to
	 * @param property the other property, as its path is kept in the overrides
	 * @param leavesWithoutEffect whether a value of it, stripped, leaves them without effect
	 * @param dependents the properties it leaves without effect
	 */
	private record Dependency(Kind kind, String property, Predicate<String> leavesWithoutEffect,
			List<String> dependents) {
	}

	/**
	 * A change made.
	 *
	 * @param kind what was changed
	 * @param name its name
	 */
	public record Change(Kind kind, String name) {
	}

	/**
	 * What can be changed, by the prefix of its properties.
	 */
	public enum Kind {

		/** A rate limiter, {@code resilience.rate-limiters.<name>}. */
		RATE_LIMITER("resilience.rate-limiters"),
		/** A retry policy, {@code resilience.retries.<name>}. */
		RETRY("resilience.retries"),
		/** Named poll settings, {@code resilience.polls.<name>}. */
		POLL("resilience.polls"),
		/** A pool, {@code resilience.pools.<name>}. */
		POOL("resilience.pools");

		private final String prefix;

		Kind(String prefix) {
			this.prefix = prefix;
		}

		/**
		 * Whether Spring Boot binds the property to the entry of this name, as it binds a map
		 * whose key is the element after the prefix in its original form: {@code partnerApi}
		 * written plainly or in brackets, {@code partner.api} in brackets.
		 */
		boolean owns(ConfigurationPropertyName property, String name) {
			// the canonical name's relaxed forms too, such as RESILIENCE_RATELIMITERS_PARTNERAPI_... for partner-api
			ConfigurationPropertyName prefix = prefix(name);
			if (prefix.equals(property) || prefix.isAncestorOf(property)) {
				return true;
			}
			ConfigurationPropertyName root = ConfigurationPropertyName.of(this.prefix);
			return root.isAncestorOf(property)
					&& property.getElement(root.getNumberOfElements(), ConfigurationPropertyName.Form.ORIGINAL)
						.equals(name);
		}

		ConfigurationPropertyName prefix(String name) {
			String property = this.prefix + "." + name;
			// A name such as "partner.api" is a single map key, written in brackets.
			return (ConfigurationPropertyName.isValid(property) && !name.contains("."))
					? ConfigurationPropertyName.of(property)
					: ConfigurationPropertyName.of(this.prefix).append("[" + name + "]");
		}

	}

	/** Maps a properties object to settings, as at startup. */
	@FunctionalInterface
	private interface Mapping<P, S> {

		S toSettings(P properties, String name);

	}

	/**
	 * Checks what else than settings a thing's properties make (a limiter's {@code http-client}
	 * routes), changing nothing, and gives what applies it, which cannot fail.
	 */
	@FunctionalInterface
	private interface Companion<P> {

		Runnable prepare(P properties, String name);

	}

	/** Applies settings to the thing of a name. */
	@FunctionalInterface
	private interface Update<S> {

		void accept(String name, S settings);

	}

	/**
	 * One kind of thing that can be changed.
	 *
	 * @param type its properties class
	 * @param names the names there are
	 * @param current the settings of a name now
	 * @param mapping the mapping of startup
	 * @param update replaces the settings of a name
	 * @param methods the annotated methods that read the settings, or {@code null}
	 * @param restorer makes what puts back the settings of a name as they are now, or {@code null}
	 * to put back the {@code current} settings
	 * @param companion checks and applies what else the properties make
	 */
	private record Target<P, S>(Class<P> type, Supplier<Set<String>> names, Function<String, S> current, Mapping<P, S> mapping, Update<S> update,
			@Nullable AnnotatedMethods<?> methods, @Nullable Function<String, Runnable> restorer, Companion<P> companion) {

		Target(Class<P> type, Supplier<Set<String>> names, Function<String, S> current, Mapping<P, S> mapping,
				Update<S> update, @Nullable AnnotatedMethods<?> methods) {
			this(type, names, current, mapping, update, methods, null);
		}

		Target(Class<P> type, Supplier<Set<String>> names, Function<String, S> current, Mapping<P, S> mapping,
				Update<S> update, @Nullable AnnotatedMethods<?> methods, @Nullable Function<String, Runnable> restorer) {
			this(type, names, current, mapping, update, methods, restorer, (properties, name) -> () -> {
			});
		}

		/** What puts back the settings of a name as they are now, when a change is refused after it was made. */
		Runnable snapshot(String name) {
			Function<String, Runnable> restorer = this.restorer;
			if (restorer != null) {
				return restorer.apply(name);
			}
			S previous = this.current.apply(name);
			return () -> this.update.accept(name, previous);
		}

	}

}
