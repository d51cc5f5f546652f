package dev.resilience.ratelimit.redis;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitStore;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreFailurePolicy;
import dev.resilience.ratelimit.StoreStatus;
import dev.resilience.ratelimit.TokenBucketSettings;
import dev.resilience.ratelimit.WindowSettings;

/**
 * Keeps a limiter's keys in Redis, so that every application instance using the same Redis
 * shares the limit.
 * <p>
 * Each decision is one run of {@code rate_limiter.lua} (see {@link RedisScriptRunner}), which
 * decides every constraint of the limiter atomically on the server's clock ({@code TIME}, in
 * microseconds) with the same rules as the in-memory store: the token bucket's greedy or interval
 * refill, exact windows as sorted sets with one member per call (its sequence number and cost, so
 * calls in the same microsecond stay distinct), approximate windows as counters, concurrency
 * permits as leases that expire, reservations for {@code max-wait}, and the exact give-back of a
 * call. {@link RedisKeys} names the keys; every write sets each key's expiry to the moment it
 * would be back to a new key's state, so idle keys disappear by themselves.
 * <p>
 * A decision waits at most the decision timeout. When Redis does not answer by then (down, slow,
 * or hung), the limiter's {@link RateLimiterSettings#onStoreFailure()} decides, and the failure is
 * counted. A decision carries the latest server time this store expects it may still run at: a
 * command that reaches a frozen server and runs only after the caller gave up changes nothing.
 * <p>
 * Waiting for a returned concurrency permit polls: the waiter asks again every
 * {@value #PERMIT_POLL_MILLIS} ms at most, so {@code n} waiters cost at most {@code 100 n}
 * decisions a second.
 */
public final class RedisRateLimitStore implements RateLimitStore {

	/** The store's type, as {@code store: redis} selects it. */
	public static final String TYPE = "redis";

	/** How often a caller waiting for a returned concurrency permit asks again, at most. */
	public static final long PERMIT_POLL_MILLIS = 10;

	/** The Retry-After of a call rejected because Redis did not answer ({@code fail-closed}). */
	static final Duration FAILURE_RETRY_AFTER = Duration.ofSeconds(1);

	private static final System.Logger logger = System.getLogger(RedisRateLimitStore.class.getName());

	private final String limiterName;

	private final RateLimiterSettings settings;

	private final RedisScriptRunner runner;

	private final RedisKeys keys;

	private final ScriptArguments arguments;

	private final long timeoutNanos;

	private final LongAdder errors = new LongAdder();

	/** The server's clock minus ours, in microseconds, see {@link #learnClockOffset(long)}. */
	private volatile long clockOffsetMicros;

	private volatile boolean clockOffsetKnown;

	/** Whether the last operation failed, so that a failure is logged once, not per call. */
	private volatile boolean failing;

	/**
	 * Creates the store of one limiter.
	 * @param limiterName the limiter's name
	 * @param settings the limiter's settings
	 * @param runner runs the script on the application's Redis
	 * @param keyPrefix what every key starts with
	 * @param decisionTimeout the longest a decision waits for Redis
	 * @throws IllegalArgumentException if the prefix holds a brace, or the settings are too large to
	 * be counted exactly in microseconds
	 */
	public RedisRateLimitStore(String limiterName, RateLimiterSettings settings, RedisScriptRunner runner,
			String keyPrefix, Duration decisionTimeout) {
		this.limiterName = Objects.requireNonNull(limiterName, "limiterName");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.runner = Objects.requireNonNull(runner, "runner");
		this.keys = new RedisKeys(keyPrefix, limiterName, settings);
		this.arguments = new ScriptArguments(limiterName, settings);
		if (decisionTimeout.isNegative() || decisionTimeout.isZero()) {
			throw new IllegalArgumentException("resilience.redis.decision-timeout must be positive but was "
					+ decisionTimeout);
		}
		this.timeoutNanos = decisionTimeout.toNanos();
	}

	@Override
	public String getType() {
		return TYPE;
	}

	@Override
	public Reservation reserve(String key, long cost, long maxWaitNanos) {
		ScriptArguments.Reply reply = decide(key, cost, maxWaitNanos, true);
		if (reply == null) {
			return Reservation.settled(failed(key));
		}
		RateLimitDecision decision = decision(key, reply);
		return decision.isPermitted() ? new Taken(key, cost, reply, decision) : Reservation.settled(decision);
	}

	@Override
	public RateLimitDecision tryAcquire(String key, long cost) {
		ScriptArguments.Reply reply = decide(key, cost, 0, true);
		return (reply != null) ? decision(key, reply) : failed(key);
	}

	@Override
	public RateLimitDecision inspect(String key) {
		ScriptArguments.Reply reply = decide(key, 1, 0, false);
		return (reply != null) ? decision(key, reply) : failed(key);
	}

	/**
	 * Polls: Redis does not tell this JVM when another instance returns a permit. Sleeps until the
	 * next poll, {@value #PERMIT_POLL_MILLIS} ms at most, after which the caller asks again.
	 */
	@Override
	public void awaitPermit(String key, long nanos) throws InterruptedException {
		TimeUnit.NANOSECONDS.sleep(Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(PERMIT_POLL_MILLIS)));
	}

	@Override
	public void reset(String key) {
		run(key, this.arguments.reset(), "reset");
	}

	@Override
	public StoreStatus checkStatus() {
		try {
			this.runner.ping(System.nanoTime() + this.timeoutNanos);
			return new StoreStatus(true, this.errors.sum(), null);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return new StoreStatus(false, this.errors.sum(), "interrupted");
		}
		catch (Exception ex) {
			return new StoreStatus(false, this.errors.sum(), describe(ex));
		}
	}

	@Override
	public long errorCount() {
		return this.errors.sum();
	}

	/** Runs a decision; {@code null} when Redis did not answer in time. */
	private ScriptArguments.@Nullable Reply decide(String key, long cost, long maxWaitNanos, boolean commit) {
		long start = System.nanoTime();
		long deadline = 0;
		if (this.clockOffsetKnown) {
			deadline = start / 1000 + this.clockOffsetMicros + this.timeoutNanos / 1000;
		}
		List<?> reply = run(key, this.arguments.decide(commit, cost, ScriptArguments.micros(maxWaitNanos), deadline),
				"decision");
		if (reply == null) {
			return null;
		}
		ScriptArguments.Reply parsed = ScriptArguments.Reply.parse(reply);
		learnClockOffset(parsed.now() - System.nanoTime() / 1000);
		if (parsed.status() < 0) {
			failure("decision", new TimeoutException("Redis ran the decision after its deadline"));
			return null;
		}
		return parsed;
	}

	/**
	 * Each reply arrives after the script ran, so each observation is at most the true offset,
	 * less by the reply's time in transit (and any pause of this thread). The largest
	 * observation is the closest: a deadline made from it is never later than meant, so a late
	 * command is refused, and never earlier by more than the quickest transit, so a command on time
	 * is not. A server clock set forward is learned from the next reply.
	 */
	private synchronized void learnClockOffset(long observed) {
		if (!this.clockOffsetKnown || observed > this.clockOffsetMicros) {
			this.clockOffsetMicros = observed;
			this.clockOffsetKnown = true;
		}
	}

	private @Nullable List<?> run(String key, byte[][] arguments, String what) {
		try {
			List<?> reply = this.runner.run(this.keys.keys(key), arguments, System.nanoTime() + this.timeoutNanos);
			if (this.failing) {
				this.failing = false;
				logger.log(System.Logger.Level.INFO, "Rate limiter '" + this.limiterName + "': Redis answers again");
			}
			return reply;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			failure(what, ex);
			return null;
		}
		catch (TimeoutException | ExecutionException | RuntimeException ex) {
			failure(what, ex);
			return null;
		}
	}

	private void failure(String what, Exception ex) {
		this.errors.increment();
		if (!this.failing) {
			this.failing = true;
			logger.log(System.Logger.Level.WARNING, "Rate limiter '" + this.limiterName + "': Redis " + what
					+ " failed, deciding " + this.settings.onStoreFailure() + " until it answers again: " + describe(ex));
		}
	}

	private static String describe(Exception ex) {
		Throwable cause = (ex instanceof ExecutionException && ex.getCause() != null) ? ex.getCause() : ex;
		String message = cause.getMessage();
		return cause.getClass().getSimpleName() + ((message != null) ? ": " + message : "");
	}

	/** The decision when Redis did not answer: the limiter's failure policy. */
	private RateLimitDecision failed(String key) {
		boolean open = this.settings.onStoreFailure() == StoreFailurePolicy.FAIL_OPEN;
		return new RateLimitDecision(this.limiterName, key, open, Duration.ZERO,
				open ? Duration.ZERO : FAILURE_RETRY_AFTER, false, unknownQuotas(), 0, this.settings.maxConcurrent());
	}

	/** Quotas when Redis did not answer: each constraint as configured, its state unknown. */
	private List<RateLimitDecision.Quota> unknownQuotas() {
		List<RateLimitDecision.Quota> quotas = new ArrayList<>();
		TokenBucketSettings bucket = this.settings.tokenBucket();
		if (bucket != null) {
			quotas.add(new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.TOKEN_BUCKET, bucket.capacity(),
					fullRefill(bucket), bucket.capacity(), Duration.ZERO));
		}
		for (WindowSettings window : this.settings.windows()) {
			quotas.add(new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.WINDOW, window.limit(), window.period(),
					window.limit(), Duration.ZERO));
		}
		return quotas;
	}

	private RateLimitDecision decision(String key, ScriptArguments.Reply reply) {
		List<RateLimitDecision.Quota> quotas = new ArrayList<>();
		long[] numbers = reply.quotas();
		int next = 0;
		TokenBucketSettings bucket = this.settings.tokenBucket();
		if (bucket != null) {
			quotas.add(new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.TOKEN_BUCKET, bucket.capacity(),
					fullRefill(bucket), numbers[0], micros(numbers[1])));
			next = 2;
		}
		for (WindowSettings window : this.settings.windows()) {
			quotas.add(new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.WINDOW, window.limit(), window.period(),
					numbers[next], micros(numbers[next + 1])));
			next += 2;
		}
		boolean permitted = reply.status() == 1;
		return new RateLimitDecision(this.limiterName, key, permitted, micros(reply.waitMicros()),
				micros(reply.retryAfterMicros()), reply.concurrencyLimited(), quotas, reply.inFlight(),
				this.settings.maxConcurrent());
	}

	private static Duration micros(long micros) {
		return Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(Math.max(0, micros)));
	}

	/** The time a bucket takes to refill from empty, rounded up as the in-memory store does. */
	private static Duration fullRefill(TokenBucketSettings bucket) {
		BigInteger[] division = BigInteger.valueOf(bucket.capacity())
			.multiply(BigInteger.valueOf(bucket.refillPeriodNanos()))
			.divideAndRemainder(BigInteger.valueOf(bucket.refillTokens()));
		BigInteger nanos = (division[1].signum() == 0) ? division[0] : division[0].add(BigInteger.ONE);
		return Duration.ofNanos(nanos.min(BigInteger.valueOf(Long.MAX_VALUE)).longValue());
	}

	@Override
	public String toString() {
		return "RedisRateLimitStore[" + this.limiterName + "]";
	}

	/** An admitted call, which can be given back or return its permit. */
	private final class Taken implements Reservation {

		private final String key;

		private final long cost;

		private final ScriptArguments.Reply reply;

		private final RateLimitDecision decision;

		private boolean done;

		Taken(String key, long cost, ScriptArguments.Reply reply, RateLimitDecision decision) {
			this.key = key;
			this.cost = cost;
			this.reply = reply;
			this.decision = decision;
		}

		@Override
		public RateLimitDecision getDecision() {
			return this.decision;
		}

		@Override
		public void cancel() {
			if (finish()) {
				run(this.key, arguments.giveBack(this.reply, this.cost), "give-back");
			}
		}

		@Override
		public void release() {
			if (settings.maxConcurrent() > 0 && finish()) {
				run(this.key, arguments.release(this.reply.sequence()), "permit return");
			}
		}

		private synchronized boolean finish() {
			if (this.done) {
				return false;
			}
			this.done = true;
			return true;
		}

		@Override
		public String toString() {
			return "Reservation[" + this.decision + "]";
		}

	}

}
