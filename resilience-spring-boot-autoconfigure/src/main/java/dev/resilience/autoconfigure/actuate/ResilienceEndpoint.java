package dev.resilience.autoconfigure.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import dev.resilience.autoconfigure.ratelimit.RateLimiterProperties;
import dev.resilience.internal.SettingsText;
import dev.resilience.poll.PollSettings;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.ConnectionPoolSettings;
import dev.resilience.pool.ConnectionPoolStats;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.TokenBucketSettings;
import dev.resilience.retry.BackoffPolicy;
import dev.resilience.retry.RetryBudget;
import dev.resilience.retry.RetryPolicy;
import dev.resilience.retry.RetryRegistry;

/**
 * The {@code resilience} endpoint, over HTTP and JMX: {@code GET /actuator/resilience} lists every
 * rate limiter with its settings and store, every retry policy with its settings and budget,
 * every named poll setting, and every pool with its settings and what it holds now;
 * {@code GET /actuator/resilience/{limiter}?key=K}
 * shows one key's state without consuming anything, the end of its pause included, and
 * {@code DELETE} on the same path resets that key. Without {@code key}, the limiter's shared bucket
 * (the empty key) is meant. Read-only by default: resetting needs
 * {@code management.endpoint.resilience.access=unrestricted}.
 * <p>
 * Settings are written as {@code application.yml} takes them, so that what is shown can be posted
 * back unchanged: enum values in kebab case ({@code fail-open}) and durations rounded to the
 * millisecond, a whole number in the largest unit that holds them ({@code 250ms}, {@code 5s});
 * fields are camelCase, a field's property being its name in kebab case.
 */
@Endpoint(id = "resilience", defaultAccess = Access.READ_ONLY)
public class ResilienceEndpoint {

	private final RateLimiterRegistry rateLimiters;

	private final @Nullable RetryRegistry retries;

	private final @Nullable PollSettingsRegistry polls;

	private final List<ConnectionPool<?>> pools;

	/** A limiter's {@code http-client} settings in force, {@code null} for a limiter without properties. */
	private final Function<String, RateLimiterProperties.@Nullable HttpClient> httpClients;

	private final Clock clock;

	/**
	 * Creates the endpoint, telling the end of a pause by the system clock.
	 * @param rateLimiters the rate limiters to show
	 */
	public ResilienceEndpoint(RateLimiterRegistry rateLimiters) {
		this(rateLimiters, null, null, List.of(), (name) -> null, Clock.systemUTC());
	}

	/**
	 * Creates the endpoint.
	 * @param rateLimiters the rate limiters to show
	 * @param retries the retry policies to show, or {@code null} for none
	 * @param polls the named poll settings to show, or {@code null} for none
	 * @param pools the pools to show
	 * @param httpClients gives a limiter's {@code http-client} settings in force (they are not part
	 * of its {@code RateLimiterSettings}, and change at run time with it), {@code null} for a limiter
	 * made without properties
	 * @param clock tells the wall-clock time at which a key's pause ends
	 */
	public ResilienceEndpoint(RateLimiterRegistry rateLimiters, @Nullable RetryRegistry retries,
			@Nullable PollSettingsRegistry polls, List<ConnectionPool<?>> pools,
			Function<String, RateLimiterProperties.@Nullable HttpClient> httpClients, Clock clock) {
		this.rateLimiters = rateLimiters;
		this.retries = retries;
		this.polls = polls;
		this.pools = List.copyOf(pools);
		this.httpClients = httpClients;
		this.clock = clock;
	}

	/**
	 * Lists everything the starter manages.
	 * @return the description
	 */
	@ReadOperation
	public ResilienceDescriptor resilience() {
		Map<String, RateLimiterDescriptor> limiters = new LinkedHashMap<>();
		this.rateLimiters.getAll()
			.forEach((limiter) -> limiters.put(limiter.getName(), RateLimiterDescriptor.of(limiter, httpClient(limiter))));
		Map<String, RetryPolicyDescriptor> retryPolicies = new LinkedHashMap<>();
		RetryRegistry retries = this.retries;
		if (retries != null) {
			retries.getNames().forEach((name) -> retryPolicies.put(name, RetryPolicyDescriptor.of(retries, name)));
		}
		Map<String, PollDescriptor> pollSettings = new LinkedHashMap<>();
		PollSettingsRegistry polls = this.polls;
		if (polls != null) {
			polls.getAll().forEach((name, settings) -> pollSettings.put(name, PollDescriptor.of(settings)));
		}
		Map<String, PoolDescriptor> pools = new LinkedHashMap<>();
		this.pools.forEach((pool) -> pools.put(pool.getName(), PoolDescriptor.of(pool)));
		return new ResilienceDescriptor(limiters, retryPolicies, pollSettings, pools);
	}

	/**
	 * Shows one key's state without consuming anything.
	 * @param limiter the limiter's name
	 * @param key the key, or {@code null} for the shared bucket
	 * @return the state, or {@code null} for an unknown limiter
	 */
	@ReadOperation
	public @Nullable KeyState rateLimiterKey(@Selector String limiter, @Nullable String key) {
		RateLimiter rateLimiter = find(limiter);
		return (rateLimiter != null) ? KeyState.of(rateLimiter, rateLimiter.inspect(bucket(key)), this.clock) : null;
	}

	/**
	 * Resets one key, so its next call finds full buckets and empty windows.
	 * @param limiter the limiter's name
	 * @param key the key, or {@code null} for the shared bucket
	 * @return the state after the reset, or {@code null} for an unknown limiter
	 */
	@DeleteOperation
	public @Nullable KeyState resetRateLimiterKey(@Selector String limiter, @Nullable String key) {
		RateLimiter rateLimiter = find(limiter);
		if (rateLimiter == null) {
			return null;
		}
		rateLimiter.reset(bucket(key));
		return KeyState.of(rateLimiter, rateLimiter.inspect(bucket(key)), this.clock);
	}

	private @Nullable RateLimiter find(String name) {
		return this.rateLimiters.getNames().contains(name) ? this.rateLimiters.get(name) : null;
	}

	private static String bucket(@Nullable String key) {
		return (key != null) ? key : "";
	}

	/**
	 * The limiter's {@code http-client} properties; a limiter made without properties (in a
	 * registry of the application's own) puts no host under it.
	 */
	private HttpClientDescriptor httpClient(RateLimiter limiter) {
		RateLimiterProperties.HttpClient httpClient = this.httpClients.apply(limiter.getName());
		return (httpClient != null) ? new HttpClientDescriptor(List.copyOf(httpClient.getHosts()), httpClient.getKey())
				: new HttpClientDescriptor(List.of(), null);
	}

	/**
	 * Everything the starter manages.
	 *
	 * @param rateLimiters the rate limiters by name
	 * @param retries the retry policies by name
	 * @param polls the named poll settings by name
	 * @param pools the pools by name
	 */
	public record ResilienceDescriptor(Map<String, RateLimiterDescriptor> rateLimiters,
			Map<String, RetryPolicyDescriptor> retries, Map<String, PollDescriptor> polls,
			Map<String, PoolDescriptor> pools) {
	}

	/**
	 * One retry policy's settings, as configured under {@code resilience.retries.<name>}.
	 *
	 * @param maxRetries the retries after the first attempt
	 * @param backoff {@code fixed}, {@code linear} or {@code exponential}
	 * @param delay the first delay
	 * @param multiplier the growth factor of exponential backoff
	 * @param maxDelay the cap on one delay
	 * @param jitter {@code none}, {@code full}, {@code equal} or {@code decorrelated}
	 * @param maxDuration the time all attempts and delays may take, or {@code null} for no limit
	 * @param retryOn the exception types retried
	 * @param noRetryOn the exception types never retried
	 * @param budget the retry budget, or {@code null} for none
	 */
	public record RetryPolicyDescriptor(int maxRetries, String backoff, String delay, double multiplier,
			String maxDelay, String jitter, @Nullable String maxDuration, List<String> retryOn,
			List<String> noRetryOn, @Nullable RetryBudgetDescriptor budget) {

		static RetryPolicyDescriptor of(RetryRegistry registry, String name) {
			return of(registry.getPolicy(name), RetryBudgetDescriptor.of(registry.getBudget(name)));
		}

		static RetryPolicyDescriptor of(RetryPolicy policy, @Nullable RetryBudgetDescriptor budget) {
			BackoffPolicy backoff = policy.backoff();
			return new RetryPolicyDescriptor(policy.maxRetries(), SettingsText.of(backoff.backoff()),
					SettingsText.of(backoff.delay()), backoff.multiplier(), SettingsText.of(backoff.maxDelay()),
					SettingsText.of(policy.jitter()), SettingsText.ofNullable(policy.maxDuration()),
					names(policy.retryOn()), names(policy.noRetryOn()), budget);
		}

		private static List<String> names(List<Class<? extends Throwable>> types) {
			return types.stream().map(Class::getName).toList();
		}

	}

	/**
	 * A retry budget's settings and the retries it allows now.
	 *
	 * @param ratio the retries allowed per first attempt
	 * @param window how far back attempts count
	 * @param minRetriesPerSecond the retries per second allowed regardless of traffic
	 * @param available the retries the budget allows now
	 */
	public record RetryBudgetDescriptor(double ratio, String window, int minRetriesPerSecond, long available) {

		static @Nullable RetryBudgetDescriptor of(@Nullable RetryBudget budget) {
			return (budget != null) ? new RetryBudgetDescriptor(budget.getSettings().ratio(),
					SettingsText.of(budget.getSettings().window()), budget.getSettings().minRetriesPerSecond(),
					budget.available()) : null;
		}

	}

	/**
	 * Named poll settings, as configured under {@code resilience.polls.<name>}.
	 *
	 * @param maxAttempts the attempts in all, -1 for unlimited
	 * @param delay the first delay
	 * @param backoff how the delay grows: {@code fixed}, {@code linear} or {@code exponential}
	 * @param multiplier the growth factor of {@code EXPONENTIAL}
	 * @param maxDelay the cap on one delay
	 * @param timeout the overall deadline, or {@code null} for none
	 * @param ignoreExceptions whether an exception counts as an unmet attempt
	 */
	public record PollDescriptor(int maxAttempts, String delay, String backoff, double multiplier, String maxDelay,
			@Nullable String timeout, boolean ignoreExceptions) {

		static PollDescriptor of(PollSettings settings) {
			BackoffPolicy backoff = settings.backoffPolicy();
			return new PollDescriptor(settings.maxAttempts(), SettingsText.of(backoff.delay()),
					SettingsText.of(backoff.backoff()), backoff.multiplier(), SettingsText.of(backoff.maxDelay()),
					SettingsText.ofNullable(settings.timeout()), settings.ignoreExceptions());
		}

	}

	/**
	 * One pool's settings, as configured under {@code resilience.pools.<name>}, and what it holds
	 * now.
	 *
	 * @param maxSize the most connections handed out at once
	 * @param minIdle the idle connections kept ready
	 * @param timeout the deadline of a call that names none
	 * @param validateOnCheckout whether connections are validated before they are handed out
	 * @param maxIdleTime how long a connection may stay idle, or {@code null} for no limit
	 * @param active the connections handed out now
	 * @param idle the connections ready now
	 * @param pending the callers waiting for a connection now
	 * @param abandoned the calls that timed out whose work still runs
	 */
	public record PoolDescriptor(int maxSize, int minIdle, String timeout, boolean validateOnCheckout,
			@Nullable String maxIdleTime, int active, int idle, int pending, int abandoned) {

		static PoolDescriptor of(ConnectionPool<?> pool) {
			ConnectionPoolSettings settings = pool.getSettings();
			ConnectionPoolStats stats = pool.getStats();
			return new PoolDescriptor(settings.maxSize(), settings.minIdle(), SettingsText.of(settings.timeout()),
					settings.validateOnCheckout(), SettingsText.ofNullable(settings.maxIdleTime()), stats.active(),
					stats.idle(), stats.pending(),
					stats.abandoned());
		}

	}

	/**
	 * One rate limiter's settings, as configured under {@code resilience.rate-limiters.<name>}.
	 *
	 * @param store where the limiter keeps its state, such as {@code memory}
	 * @param tokenBucket the token bucket, or {@code null} for none
	 * @param windows the sliding windows
	 * @param windowAlgorithm how the windows count: {@code log} or {@code counter}
	 * @param maxConcurrent the calls in flight per key, 0 for unlimited; with
	 * {@code adaptiveConcurrency}, the most its limit goes to ({@code max-limit})
	 * @param adaptiveConcurrency how the limit on calls in flight adapts when the limiter has
	 * {@code max-concurrent: adaptive}, {@code null} when {@code max-concurrent} is a number (or 0)
	 * @param leaseTimeout how long a concurrency permit lives when never returned
	 * @param maxWait how long a call may wait for a permit
	 * @param maxKeys the most keys an in-memory store holds
	 * @param onStoreFailure what a remote store decides when its server does not answer in time:
	 * {@code fail-open} or {@code fail-closed}
	 * @param pauseOnThrottle how the limiter pauses a key when its partner throttles
	 * @param httpClient the requests of Spring's HTTP clients put under the limiter
	 */
	public record RateLimiterDescriptor(String store, @Nullable TokenBucketDescriptor tokenBucket,
			List<WindowDescriptor> windows, String windowAlgorithm, int maxConcurrent,
			@Nullable AdaptiveConcurrencyDescriptor adaptiveConcurrency, String leaseTimeout, String maxWait,
			long maxKeys, String onStoreFailure, PauseOnThrottleDescriptor pauseOnThrottle,
			HttpClientDescriptor httpClient) {

		static RateLimiterDescriptor of(RateLimiter limiter, HttpClientDescriptor httpClient) {
			RateLimiterSettings settings = limiter.getSettings();
			TokenBucketSettings bucket = settings.tokenBucket();
			TokenBucketDescriptor tokenBucket = (bucket != null) ? new TokenBucketDescriptor(bucket.capacity(),
					bucket.refillTokens(), SettingsText.of(bucket.refillPeriod()),
					SettingsText.of(bucket.refillStrategy()))
					: null;
			List<WindowDescriptor> windows = settings.windows()
				.stream()
				.map((window) -> new WindowDescriptor(window.limit(), SettingsText.of(window.period())))
				.toList();
			AdaptiveConcurrencySettings adaptive = settings.adaptiveConcurrency();
			AdaptiveConcurrencyDescriptor adaptiveConcurrency = (adaptive != null)
					? new AdaptiveConcurrencyDescriptor(SettingsText.of(adaptive.algorithm()), adaptive.initialLimit(),
							adaptive.minLimit(), adaptive.maxLimit())
					: null;
			PauseOnThrottleSettings pause = settings.pauseOnThrottle();
			PauseOnThrottleDescriptor pauseOnThrottle = new PauseOnThrottleDescriptor(pause.enabled(),
					pause.statuses().stream().sorted().toList(), SettingsText.of(pause.defaultPause()),
					SettingsText.of(pause.maxPause()),
					pause.resumeJitter());
			return new RateLimiterDescriptor(limiter.getStoreType(), tokenBucket, windows,
					SettingsText.of(settings.windowAlgorithm()), settings.maxConcurrent(), adaptiveConcurrency,
					SettingsText.of(settings.leaseTimeout()), SettingsText.of(settings.maxWait()), settings.maxKeys(),
					SettingsText.of(settings.onStoreFailure()), pauseOnThrottle, httpClient);
		}

	}

	/**
	 * How a rate limiter's limit on calls in flight adapts to its partner, as configured under
	 * {@code resilience.rate-limiters.<name>.adaptive-concurrency} with {@code max-concurrent: adaptive}.
	 *
	 * @param algorithm the algorithm that proposes the limit: {@code gradient}, {@code vegas} or
	 * {@code aimd}
	 * @param initialLimit the limit of a key before any call of it ended
	 * @param minLimit the lowest the limit goes
	 * @param maxLimit the highest the limit goes
	 */
	public record AdaptiveConcurrencyDescriptor(String algorithm, int initialLimit, int minLimit, int maxLimit) {
	}

	/**
	 * How a rate limiter follows its partner's throttle signals, as configured under
	 * {@code resilience.rate-limiters.<name>.pause-on-throttle}.
	 *
	 * @param enabled whether throttled answers (and {@code RateLimiter.pause}) pause a key
	 * @param statuses the HTTP statuses that mean "slow down", in ascending order
	 * @param defaultPause the pause for a throttled answer that names no wait
	 * @param maxPause the longest pause
	 * @param resumeJitter the fraction of a pause over which the callers' resumptions are spread
	 */
	public record PauseOnThrottleDescriptor(boolean enabled, List<Integer> statuses, String defaultPause,
			String maxPause, double resumeJitter) {
	}

	/**
	 * The requests of Spring's HTTP clients a rate limiter decides, as configured under
	 * {@code resilience.rate-limiters.<name>.http-client}.
	 *
	 * @param hosts the hosts whose requests the limiter decides; empty for none
	 * @param key the SpEL expression over {@code #request} choosing the key, or {@code null} for
	 * the host
	 */
	public record HttpClientDescriptor(List<String> hosts, @Nullable String key) {
	}

	/**
	 * A token bucket's settings.
	 *
	 * @param capacity the bucket size, which is the largest burst
	 * @param refillTokens the tokens added per {@code refillPeriod}
	 * @param refillPeriod the period over which {@code refillTokens} are added
	 * @param refillStrategy {@code greedy} or {@code interval}
	 */
	public record TokenBucketDescriptor(long capacity, long refillTokens, String refillPeriod, String refillStrategy) {
	}

	/**
	 * A sliding window's settings.
	 *
	 * @param limit the most cost admitted within any interval of length {@code period}
	 * @param period the window's length
	 */
	public record WindowDescriptor(long limit, String period) {
	}

	/**
	 * The state of one key of one limiter.
	 *
	 * @param limiter the limiter's name
	 * @param key the key
	 * @param remaining the quota left in the tightest constraint
	 * @param limit the quota of the tightest constraint
	 * @param inFlight the calls in flight
	 * @param maxConcurrent the limit on calls in flight in force, 0 for none: {@code max-concurrent},
	 * or the key's adaptive limit
	 * @param adaptiveLimit the key's limit on calls in flight now, when the limiter has
	 * {@code max-concurrent: adaptive} (SPEC §11): {@code min-limit} while the key's probe measures
	 * the partner's lowest latency (from its first use, and after new adaptive settings), then the
	 * limit it learnt, from {@code initial-limit}; {@code null} when {@code max-concurrent} is a
	 * number (or 0)
	 * @param pausedUntil when the key's pause ends (its partner throttled, or the application
	 * paused it), or {@code null} when it is not paused; written {@code paused-until}, as SPEC §10
	 * names it
	 * @param quotas each token bucket and window
	 */
	public record KeyState(String limiter, String key, long remaining, long limit, int inFlight, int maxConcurrent,
			@Nullable Integer adaptiveLimit, @JsonProperty("paused-until") @Nullable Instant pausedUntil,
			List<QuotaState> quotas) {

		static KeyState of(RateLimiter limiter, RateLimitDecision decision, Clock clock) {
			List<QuotaState> quotas = decision.getQuotas()
				.stream()
				.map((quota) -> new QuotaState(quota.policyName(decision.getLimiterName()), quota.quota(),
						SettingsText.of(quota.window()), quota.remaining(), SettingsText.of(quota.reset())))
				.toList();
			Instant pausedUntil = decision.isPaused() ? endOf(decision.getPause(), clock) : null;
			Integer adaptiveLimit = (limiter.getSettings().adaptiveConcurrency() != null) ? decision.getMaxConcurrent()
					: null;
			return new KeyState(decision.getLimiterName(), decision.getKey(), decision.getRemaining(),
					decision.getLimit(), decision.getInFlight(), decision.getMaxConcurrent(), adaptiveLimit, pausedUntil,
					quotas);
		}

		/**
		 * The wall-clock end of the rest of a pause, rounded up to the millisecond: read as the
		 * time to come back, it must not be early.
		 */
		private static Instant endOf(Duration pause, Clock clock) {
			Instant end = clock.instant().plus(pause);
			Instant millis = end.truncatedTo(ChronoUnit.MILLIS);
			return millis.equals(end) ? end : millis.plusMillis(1);
		}

	}

	/**
	 * One token bucket or window of a key, named as the {@code RateLimit} header fields name it.
	 *
	 * @param policy the policy name, such as {@code partner-api-5s}
	 * @param quota the calls admitted per {@code window}
	 * @param window the window, or the time a token bucket takes to refill from empty
	 * @param remaining the quota left
	 * @param reset the time until more quota becomes available
	 */
	public record QuotaState(String policy, long quota, String window, long remaining, String reset) {

	}

}
