package dev.resilience.ratelimit.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.observation.ResilienceObservations;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;

/**
 * The {@link RateLimiterRegistry} whose limiters keep their state in {@link RateLimitStore}s: in
 * memory by default, or in any store type registered with {@link Builder#store}. It is the one the
 * starter registers; build one yourself with {@link #builder()}.
 */
public final class StoreRateLimiterRegistry implements RateLimiterRegistry {

	private final Map<String, StoreRateLimiter> limiters;

	private final RateLimitAcquirer acquirer;

	private StoreRateLimiterRegistry(Builder builder) {
		this.acquirer = new RateLimitAcquirer(builder.ticker, Ticker.system(), builder.sleeper, builder.listeners,
				builder.observations, builder.stackTraces, builder.includeKeys);
		Map<String, StoreRateLimiter> limiters = new LinkedHashMap<>();
		builder.settings.forEach((name, settings) -> {
			RateLimitStoreFactory factory = builder.stores.get(settings.store());
			if (factory == null) {
				throw new IllegalArgumentException("Rate limiter '" + name + "' uses store '" + settings.store()
						+ "', but the known stores are " + builder.stores.keySet());
			}
			RateLimitStore store = factory.create(name, settings, builder.ticker);
			limiters.put(name, new StoreRateLimiter(name, settings, store, this.acquirer));
		});
		this.limiters = Collections.unmodifiableMap(limiters);
	}

	/**
	 * Returns a builder with the system clock, the in-memory store and no limiters.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	@Override
	public RateLimiter get(String name) {
		return find(name);
	}

	private StoreRateLimiter find(String name) {
		StoreRateLimiter limiter = this.limiters.get(name);
		if (limiter == null) {
			throw new IllegalArgumentException("No rate limiter named '" + name + "'; configured under "
					+ "resilience.rate-limiters are " + this.limiters.keySet());
		}
		return limiter;
	}

	@Override
	public void updateSettings(String name, RateLimiterSettings settings) {
		find(name).updateSettings(Objects.requireNonNull(settings, "settings"));
	}

	@Override
	public Set<String> getNames() {
		return this.limiters.keySet();
	}

	@Override
	public Collection<RateLimiter> getAll() {
		return Collections.unmodifiableCollection(this.limiters.values());
	}

	@Override
	public Permit acquireAll(List<RateLimitRequest> requests) {
		return this.acquirer.acquire(requests);
	}

	@Override
	public CompletableFuture<Permit> acquireAllAsync(List<RateLimitRequest> requests,
			ScheduledExecutorService scheduler) {
		return this.acquirer.acquireAsync(requests, scheduler);
	}

	/**
	 * Builds a {@link StoreRateLimiterRegistry}.
	 */
	public static final class Builder {

		private Ticker ticker = Ticker.system();

		private Sleeper sleeper = Sleeper.system();

		private final List<RateLimitListener> listeners = new ArrayList<>();

		private ResilienceObservations observations = ResilienceObservations.none();

		private boolean stackTraces;

		private boolean includeKeys;

		private final Map<String, RateLimitStoreFactory> stores = new HashMap<>();

		private final Map<String, RateLimiterSettings> settings = new LinkedHashMap<>();

		private Builder() {
			this.stores.put(RateLimiterSettings.MEMORY_STORE, InMemoryRateLimitStore::new);
		}

		/**
		 * Sets the clock.
		 * @param ticker the clock
		 * @return this builder
		 */
		public Builder ticker(Ticker ticker) {
			this.ticker = Objects.requireNonNull(ticker, "ticker");
			return this;
		}

		/**
		 * Sets how callers wait for reserved slots.
		 * @param sleeper the sleeper
		 * @return this builder
		 */
		public Builder sleeper(Sleeper sleeper) {
			this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
			return this;
		}

		/**
		 * Adds a listener told of every final decision.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(RateLimitListener listener) {
			this.listeners.add(Objects.requireNonNull(listener, "listener"));
			return this;
		}

		/**
		 * Sets where the calls that wait are observed ({@code resilience.ratelimiter.wait}); none
		 * by default.
		 * @param observations the observations
		 * @return this builder
		 */
		public Builder observations(ResilienceObservations observations) {
			this.observations = Objects.requireNonNull(observations, "observations");
			return this;
		}

		/**
		 * Sets whether a {@link dev.resilience.ratelimit.RateLimitExceededException} records the
		 * stack trace of the rejected call. Off by default: a rejection is an expected answer under
		 * load, and recording its stack costs more than deciding it. Turn it on to see in logs
		 * where rejected calls come from.
		 * @param stackTraces whether rejections record a stack trace
		 * @return this builder
		 */
		public Builder stackTraces(boolean stackTraces) {
			this.stackTraces = stackTraces;
			return this;
		}

		/**
		 * Sets whether a {@link dev.resilience.ratelimit.RateLimitExceededException}'s message
		 * names the rejected key. Off by default: keys are often API keys or user ids, and a
		 * message reaches logs and traces; {@code getKey()} returns the key either way.
		 * @param includeKeys whether rejections' messages name their key
		 * @return this builder
		 */
		public Builder includeKeys(boolean includeKeys) {
			this.includeKeys = includeKeys;
			return this;
		}

		/**
		 * Registers a store type.
		 * @param type the name that {@link RateLimiterSettings#store()} selects it by
		 * @param factory creates one store per limiter
		 * @return this builder
		 */
		public Builder store(String type, RateLimitStoreFactory factory) {
			this.stores.put(Objects.requireNonNull(type, "type"), Objects.requireNonNull(factory, "factory"));
			return this;
		}

		/**
		 * Adds a limiter.
		 * @param name the limiter's name
		 * @param settings its settings
		 * @return this builder
		 * @throws IllegalArgumentException if the name is blank or already taken
		 */
		public Builder limiter(String name, RateLimiterSettings settings) {
			if (name == null || name.isBlank()) {
				throw new IllegalArgumentException("a rate limiter needs a name");
			}
			if (this.settings.putIfAbsent(name, Objects.requireNonNull(settings, "settings")) != null) {
				throw new IllegalArgumentException("Rate limiter '" + name + "' is defined twice");
			}
			return this;
		}

		/**
		 * Builds the registry, creating each limiter's store.
		 * @return the registry
		 * @throws IllegalArgumentException if a limiter names an unknown store
		 */
		public RateLimiterRegistry build() {
			return new StoreRateLimiterRegistry(this);
		}

	}

}
