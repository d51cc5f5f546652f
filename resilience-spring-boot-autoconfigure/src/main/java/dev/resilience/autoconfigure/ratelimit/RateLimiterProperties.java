package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationPropertiesSource;

import dev.resilience.autoconfigure.support.PropertyErrors;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.StoreFailurePolicy;
import dev.resilience.ratelimit.WindowAlgorithm;

/**
 * Configuration of one rate limiter, {@code resilience.rate-limiters.<name>}. A limiter needs at
 * least one of {@code token-bucket}, {@code windows} and {@code max-concurrent}.
 */
@ConfigurationPropertiesSource
public class RateLimiterProperties {

	/**
	 * Where the limiter keeps its state.
	 */
	private Store store = Store.MEMORY;

	/**
	 * Token bucket: a burst of up to capacity calls, refilled at refill-tokens per refill-period.
	 */
	private @Nullable TokenBucket tokenBucket;

	/**
	 * Sliding windows; each must admit a call: no interval of length period contains more
	 * than limit admitted cost.
	 */
	private List<Window> windows = new ArrayList<>();

	/**
	 * How the sliding windows count: log is exact, counter is approximate with constant memory
	 * per key.
	 */
	private WindowAlgorithm windowAlgorithm = WindowAlgorithm.LOG;

	/**
	 * Calls in flight per key: a number (0 means unlimited), or "adaptive" for a limit per key and
	 * per instance that follows the partner's latency and throttle signals (see
	 * adaptive-concurrency).
	 */
	private String maxConcurrent = "0";

	/**
	 * How the limit on calls in flight adapts when max-concurrent is adaptive.
	 */
	private @Nullable AdaptiveConcurrency adaptiveConcurrency;

	/**
	 * How long a concurrency permit lives when its holder never returns it.
	 */
	private Duration leaseTimeout = Duration.ofMinutes(1);

	/**
	 * How long a call may wait for a permit; 0 rejects at once.
	 */
	private Duration maxWait = Duration.ZERO;

	/**
	 * Most keys the in-memory store holds; beyond it the least recently used keys are forgotten
	 * (and start full again).
	 */
	// A literal, not RateLimiterSettings.DEFAULT_MAX_KEYS: the metadata processor reads only
	// literals, and IDEs show the default from it. ConfigurationMetadataTests keeps the two equal.
	private long maxKeys = 1_000_000;

	/**
	 * What a remote store (redis) decides when its server does not answer within
	 * resilience.redis.decision-timeout: fail-open admits the call, fail-closed rejects it.
	 */
	private StoreFailurePolicy onStoreFailure = StoreFailurePolicy.FAIL_OPEN;

	/**
	 * Following the partner: a limited call that ends with a throttled answer (a status in
	 * statuses) pauses its key, on every instance sharing the store, for the answer's Retry-After.
	 */
	private final PauseOnThrottle pauseOnThrottle = new PauseOnThrottle();

	/**
	 * Requests made through Spring Boot's RestClient.Builder, WebClient.Builder and
	 * RestTemplateBuilder to these hosts are put under this limiter.
	 */
	private final HttpClient httpClient = new HttpClient();

	/**
	 * The properties set among those that take effect only beside others, as they are spelt: set
	 * where they cannot take effect, they are refused, never silently ignored.
	 */
	private final Set<String> written = new HashSet<>();

	public Store getStore() {
		return this.store;
	}

	public void setStore(Store store) {
		this.store = store;
	}

	public @Nullable TokenBucket getTokenBucket() {
		return this.tokenBucket;
	}

	public void setTokenBucket(@Nullable TokenBucket tokenBucket) {
		this.tokenBucket = tokenBucket;
	}

	public List<Window> getWindows() {
		return this.windows;
	}

	public void setWindows(List<Window> windows) {
		this.windows = windows;
	}

	public WindowAlgorithm getWindowAlgorithm() {
		return this.windowAlgorithm;
	}

	public void setWindowAlgorithm(WindowAlgorithm windowAlgorithm) {
		this.windowAlgorithm = windowAlgorithm;
		this.written.add("window-algorithm");
	}

	public String getMaxConcurrent() {
		return this.maxConcurrent;
	}

	public void setMaxConcurrent(String maxConcurrent) {
		this.maxConcurrent = maxConcurrent;
	}

	public @Nullable AdaptiveConcurrency getAdaptiveConcurrency() {
		return this.adaptiveConcurrency;
	}

	public void setAdaptiveConcurrency(@Nullable AdaptiveConcurrency adaptiveConcurrency) {
		this.adaptiveConcurrency = adaptiveConcurrency;
	}

	public Duration getLeaseTimeout() {
		return this.leaseTimeout;
	}

	public void setLeaseTimeout(Duration leaseTimeout) {
		this.leaseTimeout = leaseTimeout;
		this.written.add("lease-timeout");
	}

	public Duration getMaxWait() {
		return this.maxWait;
	}

	public void setMaxWait(Duration maxWait) {
		this.maxWait = maxWait;
	}

	public long getMaxKeys() {
		return this.maxKeys;
	}

	public void setMaxKeys(long maxKeys) {
		this.maxKeys = maxKeys;
		this.written.add("max-keys");
	}

	public StoreFailurePolicy getOnStoreFailure() {
		return this.onStoreFailure;
	}

	public void setOnStoreFailure(StoreFailurePolicy onStoreFailure) {
		this.onStoreFailure = onStoreFailure;
		this.written.add("on-store-failure");
	}

	public PauseOnThrottle getPauseOnThrottle() {
		return this.pauseOnThrottle;
	}

	public HttpClient getHttpClient() {
		return this.httpClient;
	}

	/** The value of max-concurrent that makes the limit adaptive. */
	static final String ADAPTIVE = "adaptive";

	/**
	 * Returns whether a value of max-concurrent makes the limit adaptive: {@code adaptive} in any
	 * case, blanks around it ignored.
	 * @param maxConcurrent the value
	 * @return whether it is {@code adaptive}
	 */
	public static boolean isAdaptive(String maxConcurrent) {
		return ADAPTIVE.equalsIgnoreCase(maxConcurrent.strip());
	}

	/**
	 * Maps these properties to the settings of the limiter.
	 * @param name the limiter's name, for error messages
	 * @return the settings
	 * @throws IllegalArgumentException naming the offending property
	 */
	public RateLimiterSettings toSettings(String name) {
		String prefix = "resilience.rate-limiters." + name + ".";
		RateLimiterSettings.Builder builder = RateLimiterSettings.builder()
			.store(this.store.id())
			.windowAlgorithm(this.windowAlgorithm)
			.maxWait(this.maxWait)
			.maxKeys(this.maxKeys)
			.onStoreFailure(this.onStoreFailure);
		validate(prefix, () -> builder.pauseOnThrottle(this.pauseOnThrottle.toSettings()));
		concurrency(prefix, builder);
		TokenBucket bucket = this.tokenBucket;
		if (bucket != null) {
			if (bucket.refillTokens == null) {
				throw new IllegalArgumentException(prefix + "token-bucket.refill-tokens is required");
			}
			long capacity = (bucket.capacity != null) ? bucket.capacity : bucket.refillTokens;
			validate(prefix, () -> builder.tokenBucket(capacity, bucket.refillTokens, bucket.refillPeriod,
					bucket.refillStrategy));
		}
		for (int i = 0; i < this.windows.size(); i++) {
			Window window = this.windows.get(i);
			String windowPrefix = prefix + "windows[" + i + "].";
			if (window.limit == null || window.period == null) {
				throw new IllegalArgumentException(windowPrefix + ((window.limit == null) ? "limit" : "period") + " is required");
			}
			validate(windowPrefix, () -> builder.window(window.limit, window.period));
		}
		RateLimiterSettings settings;
		try {
			settings = builder.build();
		}
		catch (IllegalArgumentException ex) {
			throw PropertyErrors.named("resilience.rate-limiters." + name, ex, RateLimiterProperties.class);
		}
		checkApplicable(prefix, settings);
		return settings;
	}

	/** Refuses a property set that the settings leave without effect, naming it and saying why. */
	private void checkApplicable(String prefix, RateLimiterSettings settings) {
		boolean memory = this.store == Store.MEMORY;
		if (this.written.contains("max-keys") && !memory) {
			throw inapplicable(prefix + "max-keys", "only bounds the keys of the memory store, and store is "
					+ this.store.id() + ", whose keys expire on their own: remove max-keys");
		}
		if (this.written.contains("on-store-failure") && memory) {
			throw inapplicable(prefix + "on-store-failure", "is what a remote store decides when its server does not "
					+ "answer, and store is memory, which always answers: remove on-store-failure or set store: redis");
		}
		if (this.written.contains("window-algorithm") && settings.windows().isEmpty()) {
			throw inapplicable(prefix + "window-algorithm", "is how windows count, and the limiter has no windows: "
					+ "remove window-algorithm or add windows");
		}
		if (this.written.contains("lease-timeout") && settings.maxConcurrent() == 0
				&& settings.adaptiveConcurrency() == null) {
			throw inapplicable(prefix + "lease-timeout", "is how long a permit of max-concurrent lives, and "
					+ "max-concurrent is 0 (unlimited), so no permit is held: remove lease-timeout or set max-concurrent");
		}
		this.pauseOnThrottle.checkApplicable(prefix + "pause-on-throttle.", settings.adaptiveConcurrency() != null);
	}

	private static IllegalArgumentException inapplicable(String property, String why) {
		return new IllegalArgumentException(PropertyErrors.property(property, "cannot take effect: " + why));
	}

	/** Sets max-concurrent, a number or "adaptive", and adaptive-concurrency, which only "adaptive" takes. */
	private void concurrency(String prefix, RateLimiterSettings.Builder builder) {
		String value = this.maxConcurrent.strip();
		AdaptiveConcurrency adaptive = this.adaptiveConcurrency;
		if (isAdaptive(value)) {
			AdaptiveConcurrency settings = (adaptive != null) ? adaptive : new AdaptiveConcurrency();
			validate(prefix, () -> builder.adaptiveConcurrency(settings.toSettings(), this.leaseTimeout));
			return;
		}
		int limit;
		try {
			limit = Integer.parseInt(value);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(prefix + "max-concurrent must be a number of calls in flight (0 for "
					+ "unlimited) or '" + ADAPTIVE + "' but was '" + this.maxConcurrent + "'");
		}
		if (adaptive != null) {
			throw new IllegalArgumentException(prefix + "adaptive-concurrency is set, but max-concurrent is " + limit
					+ ", not '" + ADAPTIVE + "', so it would not take effect: set max-concurrent: " + ADAPTIVE
					+ " or remove adaptive-concurrency");
		}
		validate(prefix, () -> builder.maxConcurrent(limit, this.leaseTimeout));
	}

	private static void validate(String prefix, Runnable step) {
		try {
			step.run();
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(prefix + ex.getMessage(), ex);
		}
	}

	/**
	 * Where a limiter keeps its state.
	 */
	public enum Store {

		/**
		 * In this JVM's memory; each application instance limits on its own.
		 */
		MEMORY(RateLimiterSettings.MEMORY_STORE),

		/**
		 * In Redis, through Spring Data Redis (Lettuce) as configured by spring.data.redis.*: every
		 * application instance using that Redis shares the limit.
		 */
		REDIS("redis");

		private final String id;

		Store(String id) {
			this.id = id;
		}

		/**
		 * Returns the store type, as {@code RateLimiterSettings#store()} names it.
		 * @return the store type
		 */
		public String id() {
			return this.id;
		}

	}

	/**
	 * How a limit on calls in flight adapts to the partner (max-concurrent: adaptive).
	 */
	public static class AdaptiveConcurrency {

		/**
		 * Algorithm that proposes the limit: gradient, vegas or aimd.
		 */
		private AdaptiveConcurrencySettings.Algorithm algorithm = AdaptiveConcurrencySettings.Algorithm.GRADIENT;

		/**
		 * Limit of a key before any of its calls ended.
		 */
		private int initialLimit = 10;

		/**
		 * Lowest the limit goes.
		 */
		private int minLimit = 1;

		/**
		 * Highest the limit goes.
		 */
		private int maxLimit = 200;

		public AdaptiveConcurrencySettings.Algorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(AdaptiveConcurrencySettings.Algorithm algorithm) {
			this.algorithm = algorithm;
		}

		public int getInitialLimit() {
			return this.initialLimit;
		}

		public void setInitialLimit(int initialLimit) {
			this.initialLimit = initialLimit;
		}

		public int getMinLimit() {
			return this.minLimit;
		}

		public void setMinLimit(int minLimit) {
			this.minLimit = minLimit;
		}

		public int getMaxLimit() {
			return this.maxLimit;
		}

		public void setMaxLimit(int maxLimit) {
			this.maxLimit = maxLimit;
		}

		AdaptiveConcurrencySettings toSettings() {
			return new AdaptiveConcurrencySettings(this.algorithm, this.initialLimit, this.minLimit, this.maxLimit);
		}

	}

	/**
	 * A token bucket.
	 */
	public static class TokenBucket {

		/**
		 * Bucket size, which is the largest burst; defaults to refill-tokens.
		 */
		private @Nullable Long capacity;

		/**
		 * Tokens added per refill-period.
		 */
		private @Nullable Long refillTokens;

		/**
		 * Period over which refill-tokens are added.
		 */
		private Duration refillPeriod = Duration.ofSeconds(1);

		/**
		 * greedy adds tokens continuously; interval adds refill-tokens at once per whole period.
		 */
		private RefillStrategy refillStrategy = RefillStrategy.GREEDY;

		public @Nullable Long getCapacity() {
			return this.capacity;
		}

		public void setCapacity(@Nullable Long capacity) {
			this.capacity = capacity;
		}

		public @Nullable Long getRefillTokens() {
			return this.refillTokens;
		}

		public void setRefillTokens(@Nullable Long refillTokens) {
			this.refillTokens = refillTokens;
		}

		public Duration getRefillPeriod() {
			return this.refillPeriod;
		}

		public void setRefillPeriod(Duration refillPeriod) {
			this.refillPeriod = refillPeriod;
		}

		public RefillStrategy getRefillStrategy() {
			return this.refillStrategy;
		}

		public void setRefillStrategy(RefillStrategy refillStrategy) {
			this.refillStrategy = refillStrategy;
		}

	}

	/**
	 * Pausing a key when its partner throttles.
	 */
	public static class PauseOnThrottle {

		/**
		 * Whether throttled answers (and RateLimiter.pause) pause the call's key.
		 */
		private boolean enabled;

		/**
		 * HTTP statuses that mean "slow down".
		 */
		private List<Integer> statuses = new ArrayList<>(List.of(429, 503));

		/**
		 * Pause for a throttled answer that names no wait (no Retry-After, no RateLimit item with r=0).
		 */
		private Duration defaultPause = Duration.ofSeconds(1);

		/**
		 * Longest pause; a longer wait asked for is cut to this.
		 */
		private Duration maxPause = Duration.ofMinutes(10);

		/**
		 * Fraction of a pause over which the callers' resumptions are spread, from 0 to 1.
		 */
		private double resumeJitter = 0.1;

		/** The properties set among statuses, default-pause, max-pause and resume-jitter. */
		private final Set<String> written = new HashSet<>();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public List<Integer> getStatuses() {
			return this.statuses;
		}

		public void setStatuses(List<Integer> statuses) {
			this.statuses = statuses;
			this.written.add("statuses");
		}

		public Duration getDefaultPause() {
			return this.defaultPause;
		}

		public void setDefaultPause(Duration defaultPause) {
			this.defaultPause = defaultPause;
			this.written.add("default-pause");
		}

		public Duration getMaxPause() {
			return this.maxPause;
		}

		public void setMaxPause(Duration maxPause) {
			this.maxPause = maxPause;
			this.written.add("max-pause");
		}

		public double getResumeJitter() {
			return this.resumeJitter;
		}

		public void setResumeJitter(double resumeJitter) {
			this.resumeJitter = resumeJitter;
			this.written.add("resume-jitter");
		}

		/**
		 * Refuses a property set that takes no effect while pausing is off; statuses also tell an
		 * adaptive limit which answers are drops.
		 */
		void checkApplicable(String prefix, boolean adaptive) {
			if (this.enabled) {
				return;
			}
			for (String property : List.of("statuses", "default-pause", "max-pause", "resume-jitter")) {
				boolean readByAdaptive = adaptive && property.equals("statuses");
				if (this.written.contains(property) && !readByAdaptive) {
					throw inapplicable(prefix + property, "only applies when " + prefix + "enabled is true"
							+ (property.equals("statuses") ? " or max-concurrent is adaptive" : "")
							+ ", and it is false: set it true or remove " + property);
				}
			}
		}

		PauseOnThrottleSettings toSettings() {
			return new PauseOnThrottleSettings(this.enabled, new LinkedHashSet<>(this.statuses), this.defaultPause,
					this.maxPause, this.resumeJitter);
		}

	}

	/**
	 * Putting the requests of Spring's HTTP clients under the limiter.
	 */
	public static class HttpClient {

		/**
		 * Host names whose requests (through Boot's RestClient.Builder, WebClient.Builder and
		 * RestTemplateBuilder) the limiter decides, and whose answers it reads for throttle signals.
		 */
		private List<String> hosts = new ArrayList<>();

		/**
		 * SpEL expression over #request (Spring's HttpRequest) choosing the key; by default the host.
		 */
		private @Nullable String key;

		public List<String> getHosts() {
			return this.hosts;
		}

		public void setHosts(List<String> hosts) {
			this.hosts = hosts;
		}

		public @Nullable String getKey() {
			return this.key;
		}

		public void setKey(@Nullable String key) {
			this.key = key;
		}

	}

	/**
	 * A sliding window.
	 */
	@ConfigurationPropertiesSource
	public static class Window {

		/**
		 * Most cost admitted within any interval of length period.
		 */
		private @Nullable Long limit;

		/**
		 * Length of the window.
		 */
		private @Nullable Duration period;

		public @Nullable Long getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable Long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(@Nullable Duration period) {
			this.period = period;
		}

	}

}
