package dev.resilience.ratelimit.redis;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.resilience.Ticker;
import dev.resilience.internal.DurationText;
import dev.resilience.internal.Listeners;
import dev.resilience.internal.SettingsText;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreFailureListener;
import dev.resilience.ratelimit.StoreFailurePolicy;
import dev.resilience.ratelimit.StoreStatus;
import dev.resilience.ratelimit.TokenBucketSettings;
import dev.resilience.ratelimit.WindowSettings;
import dev.resilience.ratelimit.redis.RedisScriptRunner.Script;
import dev.resilience.ratelimit.store.KeyPause;
import dev.resilience.ratelimit.store.RateLimitStore;

/**
 * Keeps a limiter's keys in Redis, so that every application instance using the same Redis
 * shares the limit.
 * <p>
 * Each decision is one run of {@code decide.lua} (see {@link RedisScriptRunner}; for a limiter with
 * a token bucket alone, the shorter {@code decide_bucket.lua}), which
 * decides every constraint of the limiter atomically on the server's clock ({@code TIME}, in
 * microseconds) with the same rules as the in-memory store: the token bucket's greedy or interval
 * refill, exact windows as sorted sets with one member per call (its sequence number and cost, so
 * calls in the same microsecond stay distinct), approximate windows as counters, concurrency
 * permits as leases that expire, reservations for {@code max-wait}, and the exact give-back of a
 * call. {@link RedisKeys} names the keys; every write sets each key's expiry to the moment it
 * would be back to a new key's state, so idle keys disappear by themselves.
 * <p>
 * A decision waits at most the decision timeout, and holds no thread meanwhile: the blocking
 * methods and {@link #reserveAsync(String, long, long)} share one path, which composes Lettuce's
 * future, and only the blocking ones wait for it. A blocking caller times its own wait and makes
 * its decision of the reply on its own thread: no timer's shared queue, and less work on Lettuce's
 * event loop, which every command of the application waits on. When Redis does not answer by then
 * (down, slow, or hung), the limiter's {@link RateLimiterSettings#onStoreFailure()} decides, and the failure is
 * counted. While Redis is known to be out (the connection is lost, or a command found it hung),
 * decisions do not wait at all: {@link RedisScriptRunner} fails them at once and probes, one probe
 * at a time, for Redis's return. A decision carries the latest server time this store expects it
 * may still run at: a command that reaches a frozen server and runs only after the caller gave up
 * changes nothing.
 * <p>
 * Waiting for a returned concurrency permit polls: the waiter asks again every
 * {@value #PERMIT_POLL_MILLIS} ms at most, so {@code n} waiters cost at most {@code 100 n}
 * decisions a second.
 * <p>
 * A key's pause (SPEC §10, {@link #pause}) is a Redis key of its own beside the key's state (same
 * hash tag), written by {@code pause.lua} on the server's clock and expiring when the pause ends,
 * so every instance's next decision sees it. While the limiter's {@code pause-on-throttle} is
 * enabled, each decision sends that key too, and the decide script reads it first: a paused key's
 * decision is still one round trip, and takes and writes nothing. A limiter that does not pause
 * neither sends nor reads it.
 */
public final class RedisRateLimitStore implements RateLimitStore {

	/** The store's type, as {@code store: redis} selects it. */
	public static final String TYPE = "redis";

	/**
	 * How often a caller waiting for a returned concurrency permit asks again, at most: as often as
	 * the asynchronous wait of {@link RateLimitStore#awaitPermitAsync}, which this store keeps.
	 */
	public static final long PERMIT_POLL_MILLIS = PERMIT_RECHECK_MILLIS;

	/**
	 * The most permit returns kept to be sent again once Redis answers (see {@link #unsentReturns}):
	 * more than the calls one instance has in flight on one limiter, in practice. Only permits
	 * held in Redis are returned, and a decision Redis does not answer takes none.
	 */
	static final int MAX_UNSENT_RETURNS = 1_000;

	/**
	 * How often kept permit returns are sent again, at most, on any answer of Redis: also when no
	 * server's failures end, as after a cluster's failover, whose new node never failed.
	 */
	static final long RESEND_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** The Retry-After of a call rejected because Redis did not answer ({@code fail-closed}). */
	static final Duration FAILURE_RETRY_AFTER = Duration.ofSeconds(1);

	private static final System.Logger logger = System.getLogger(RedisRateLimitStore.class.getName());

	/**
	 * The outcome of a blocking decision: the reply itself, so that the caller's thread, not
	 * Lettuce's event loop (which every command of the application waits on), makes the decision
	 * of it.
	 */
	private static final Function<ScriptArguments.@Nullable Reply, ScriptArguments.@Nullable Reply> REPLY =
			(reply) -> reply;

	private final String limiterName;

	/**
	 * The settings, replaced at run time ({@link #updateSettings}): each decision sends the
	 * settings it read with its own arguments, so the scripts decide by this instance's settings.
	 */
	private volatile RateLimiterSettings settings;

	private final RedisScriptRunner runner;

	private final RedisKeys keys;

	/** The arguments of {@link #settings}, replaced with them. */
	private volatile ScriptArguments arguments;

	private final long timeoutNanos;

	private final LongAdder errors = new LongAdder();

	private final List<StoreFailureListener> listeners;

	/**
	 * How long the limiter's permits are typically held, in microseconds, as the last permit return
	 * replied it (0 unknown), see {@link #learnTypicalHold}.
	 */
	private volatile long typicalHoldMicros;

	/** What this store knows of the server's clock, see {@link #learnClockOffset(long)}. */
	private volatile ClockOffset clockOffset = ClockOffset.UNKNOWN;

	/**
	 * The time the bucket of {@link #settings} takes to refill from empty, part of every decision's
	 * quota: worked out (in {@code BigInteger}) once per settings, not per decision.
	 */
	private volatile @Nullable BucketRefill bucketRefill;

	/**
	 * The servers ({@link RedisScriptRunner#route routes}: a cluster's nodes) whose last operation
	 * for this limiter failed, so that an outage is logged once, not per call, and the answers of a
	 * cluster's other nodes do not end a node's outage (which would log it again at its next call).
	 */
	private final Set<String> failingRoutes = ConcurrentHashMap.newKeySet();

	/**
	 * Permit returns that failed (Redis out, hung, or too slow to answer), sent again once a
	 * server of this limiter answers again, and on any answer at most once a second while some
	 * are kept: each would otherwise hold its permit until its lease timed out. Sending a return
	 * twice is harmless (it may have run although its answer never came): it removes only the
	 * lease its call made, by its number and its start. A give-back is not sent again: one that
	 * ran already would be counted twice. At most {@link #MAX_UNSENT_RETURNS} are kept; a permit
	 * beyond them is freed by its lease timeout.
	 */
	private final Queue<PermitReturn> unsentReturns = new ConcurrentLinkedQueue<>();

	/** How many {@link #unsentReturns} holds, or is about to. */
	private final AtomicInteger unsentCount = new AtomicInteger();

	/** Whether the returns of {@link #unsentReturns} are being sent again. */
	private final AtomicBoolean resending = new AtomicBoolean();

	/** Whether a server answered again since they began to be: they are gone through once more. */
	private final AtomicBoolean resendRequested = new AtomicBoolean();

	/** Reads the time for {@link #lastResend} and the windows of {@link #clockOffset}. */
	private final Ticker ticker;

	/** When the kept returns last began to be sent again, on {@link #ticker}. */
	private final AtomicLong lastResend;

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
		this(limiterName, settings, runner, keyPrefix, decisionTimeout, List.of());
	}

	/**
	 * Creates the store of one limiter, which tells listeners of each failure it counts.
	 * @param limiterName the limiter's name
	 * @param settings the limiter's settings
	 * @param runner runs the script on the application's Redis
	 * @param keyPrefix what every key starts with
	 * @param decisionTimeout the longest a decision waits for Redis
	 * @param listeners told of each failure, in order
	 * @throws IllegalArgumentException if the prefix holds a brace, or the settings are too large to
	 * be counted exactly in microseconds
	 */
	public RedisRateLimitStore(String limiterName, RateLimiterSettings settings, RedisScriptRunner runner,
			String keyPrefix, Duration decisionTimeout, List<StoreFailureListener> listeners) {
		this(limiterName, settings, runner, keyPrefix, decisionTimeout, listeners, Ticker.system());
	}

	/**
	 * Creates the store of one limiter, which tells listeners of each failure it counts and reads
	 * the time from a ticker: how long ago permit returns that failed were last sent again, and how
	 * old its observations of the server's clock are.
	 * @param limiterName the limiter's name
	 * @param settings the limiter's settings
	 * @param runner runs the script on the application's Redis
	 * @param keyPrefix what every key starts with
	 * @param decisionTimeout the longest a decision waits for Redis
	 * @param listeners told of each failure, in order
	 * @param ticker the application's clock
	 * @throws IllegalArgumentException if the prefix holds a brace, or the settings are too large to
	 * be counted exactly in microseconds
	 */
	public RedisRateLimitStore(String limiterName, RateLimiterSettings settings, RedisScriptRunner runner,
			String keyPrefix, Duration decisionTimeout, List<StoreFailureListener> listeners, Ticker ticker) {
		this.limiterName = Objects.requireNonNull(limiterName, "limiterName");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.runner = Objects.requireNonNull(runner, "runner");
		this.keys = new RedisKeys(keyPrefix, limiterName, settings);
		this.arguments = new ScriptArguments(limiterName, settings);
		if (decisionTimeout.isNegative() || decisionTimeout.isZero()) {
			throw new IllegalArgumentException("resilience.redis.decision-timeout must be positive but was "
					+ DurationText.of(decisionTimeout));
		}
		this.timeoutNanos = decisionTimeout.toNanos();
		this.listeners = List.copyOf(listeners);
		this.ticker = Objects.requireNonNull(ticker, "ticker");
		this.lastResend = new AtomicLong(ticker.read());
	}

	@Override
	public String getType() {
		return TYPE;
	}

	/**
	 * Takes new settings of the same shape (so the same keys): the next decision sends them to the
	 * script, which decides over the key's state in Redis as it is, a bucket holding no more than a
	 * new capacity. Other instances go on sending their own settings until they change theirs.
	 * @throws IllegalArgumentException if the settings are too large to be counted exactly in
	 * microseconds
	 */
	@Override
	public boolean updateSettings(RateLimiterSettings settings) {
		ScriptArguments arguments = new ScriptArguments(this.limiterName, settings);
		// Arguments first: a decision reading them may report its quotas by the old settings, of
		// the same shape, until the settings follow.
		this.arguments = arguments;
		this.settings = settings;
		return true;
	}

	@Override
	public Reservation reserve(String key, long cost, long maxWaitNanos) {
		ScriptArguments arguments = this.arguments;
		byte[][] redisKeys = this.keys.keys(key, arguments.pauses());
		ScriptArguments.Reply reply = decideAndWait(arguments, redisKeys, cost, maxWaitNanos, true);
		return outcome(redisKeys, cost, true, reply, (answer) -> reservationOf(key, redisKeys, cost, answer));
	}

	/**
	 * Decides without holding the calling thread: the future completes when Redis answers, or by
	 * the limiter's {@code on-store-failure} when it fails or the decision timeout has passed, on
	 * the runner's scheduler (the application's {@code resilienceScheduler}), never on Lettuce's
	 * event loop; or at once, on the caller's thread, while Redis is known to be out. Cancelling
	 * the future gives back what the decision took, should Redis admit it still.
	 */
	@Override
	public CompletableFuture<Reservation> reserveAsync(String key, long cost, long maxWaitNanos) {
		ScriptArguments arguments = this.arguments;
		byte[][] redisKeys = this.keys.keys(key, arguments.pauses());
		return decide(arguments, redisKeys, cost, maxWaitNanos, true,
				(reply) -> reservationOf(key, redisKeys, cost, reply));
	}

	@Override
	public RateLimitDecision tryAcquire(String key, long cost) {
		ScriptArguments arguments = this.arguments;
		byte[][] redisKeys = this.keys.keys(key, arguments.pauses());
		ScriptArguments.Reply reply = decideAndWait(arguments, redisKeys, cost, 0, true);
		return outcome(redisKeys, cost, true, reply, (answer) -> decisionOf(key, answer, true));
	}

	@Override
	public RateLimitDecision inspect(String key) {
		ScriptArguments arguments = this.arguments;
		byte[][] redisKeys = this.keys.keys(key, arguments.pauses());
		ScriptArguments.Reply reply = decideAndWait(arguments, redisKeys, 1, 0, false);
		// a paused key shows the end of its pause, without a share of the resumptions' spread
		return outcome(redisKeys, 1, false, reply, (answer) -> decisionOf(key, answer, false));
	}

	/**
	 * Polls: Redis does not tell this JVM when another instance returns a permit. Sleeps until the
	 * next poll, {@value #PERMIT_POLL_MILLIS} ms at most, after which the caller asks again.
	 */
	@Override
	public void awaitPermit(String key, long nanos) throws InterruptedException {
		TimeUnit.NANOSECONDS.sleep(pollDelay(nanos));
	}

	private static long pollDelay(long nanos) {
		return Math.max(0, Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(PERMIT_POLL_MILLIS)));
	}

	@Override
	public void reset(String key) {
		// the pause too, whether the limiter pauses now or not
		byte[][] redisKeys = this.keys.keys(key, true);
		awaitDone(this.runner.unlink(redisKeys, this.timeoutNanos).handle((count, ex) -> {
			log((ex != null) ? failure(redisKeys, "reset", ex) : answered(redisKeys));
			return null;
		}));
	}

	@Override
	public boolean canPause() {
		return true;
	}

	/**
	 * Pauses the key in Redis, where every instance's next decision sees it, waiting for Redis up
	 * to the decision timeout. A thread interrupted before it asks waits as any other, and stays
	 * interrupted; one interrupted while it waits stops waiting, and the pause counts as failed.
	 * @throws IllegalStateException if Redis did not store the pause in time (down, hung, too slow,
	 * or interrupted): counted as a store error
	 */
	@Override
	public void pause(String key, long nanos) {
		byte[][] pauseKey = this.keys.pauseKey(key);
		CompletableFuture<List<?>> sent = sendPause(pauseKey, nanos, false);
		CompletableFuture<Void> stored = stored(pauseKey, sent, false);
		boolean interrupted = Thread.interrupted();
		try {
			stored.get(this.timeoutNanos, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			// given up on as a timer would: stored fails (unless the reply has just come)
			sent.completeExceptionally(ex);
		}
		catch (InterruptedException ex) {
			interrupted = true;
			sent.cancel(false);
		}
		catch (ExecutionException ex) {
			throw (RuntimeException) ex.getCause();
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
		try {
			stored.join();
		}
		catch (CompletionException ex) {
			throw (RuntimeException) ex.getCause();
		}
	}

	/**
	 * Pauses the key in Redis as {@link #pause} does, without holding the calling thread: the
	 * future completes when Redis answers, or exceptionally with an {@link IllegalStateException}
	 * when it fails or the decision timeout has passed, on the runner's scheduler; or at once while
	 * Redis is known to be out; each failure is counted as a store error.
	 */
	@Override
	public CompletableFuture<Void> pauseAsync(String key, long nanos) {
		byte[][] pauseKey = this.keys.pauseKey(key);
		return stored(pauseKey, sendPause(pauseKey, nanos, true), true);
	}

	/**
	 * Sends {@code pause.lua} with the latest server time at which it may still run: a pause that
	 * reaches a frozen server and would run only after its caller was told it failed changes
	 * nothing (it would pause the key later, and longer, than asked).
	 */
	private CompletableFuture<List<?>> sendPause(byte[][] pauseKey, long nanos, boolean timed) {
		return this.runner.run(Script.PAUSE, pauseKey, ScriptArguments.pause(nanos, deadline()), this.timeoutNanos,
				timed);
	}

	/**
	 * Completes when Redis stored the pause, or kept a longer one; exceptionally, naming the limiter
	 * but not the key, when it failed, which is counted.
	 */
	private CompletableFuture<Void> stored(byte[][] pauseKey, CompletableFuture<List<?>> sent, boolean async) {
		CompletableFuture<Void> stored = new CompletableFuture<>();
		whenComplete(sent, async, (reply, ex) -> {
			Throwable failure = (ex == null && ((Long) reply.get(0)) < 0)
					? new TimeoutException("Redis ran the pause after its deadline") : ex;
			if (failure == null) {
				String news = answered(pauseKey);
				stored.complete(null);
				log(news);
				return;
			}
			String news = failure(pauseKey, "pause", failure);
			stored.completeExceptionally(new IllegalStateException("Rate limiter '" + this.limiterName
					+ "': Redis did not store the pause: " + RedisScriptRunner.describe(failure),
					RedisScriptRunner.cause(failure)));
			// last, after the caller's future is complete: logging may block
			log(news);
		});
		return stored;
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
			return new StoreStatus(false, this.errors.sum(), RedisScriptRunner.describe(ex));
		}
	}

	@Override
	public long errorCount() {
		return this.errors.sum();
	}

	/**
	 * Runs a decision, given up on by a timer at the decision timeout, for a caller that must not
	 * block (a blocking one uses {@link #decideAndWait}). The future completes with the outcome made
	 * of Redis's reply, or of {@code null} when Redis failed (counted). Should the caller cancel the
	 * future before Redis admits the call, what the call took is given back.
	 */
	private <T> CompletableFuture<T> decide(ScriptArguments arguments, byte[][] redisKeys, long cost,
			long maxWaitNanos, boolean commit, Function<ScriptArguments.@Nullable Reply, T> outcome) {
		return decided(redisKeys, cost, commit, send(arguments, redisKeys, cost, maxWaitNanos, commit, true), outcome,
				true);
	}

	/**
	 * Runs a decision for a caller that may block, and waits for its reply ({@code null} when Redis
	 * failed, counted) up to the decision timeout, which the waiting thread times itself: no timer
	 * is involved. At the timeout the command is given up on as a timer would. A caller interrupted
	 * while it waits is back at once, still interrupted, with {@code null} (counted as a failure);
	 * the decision, cancelled, gives back what it took, should Redis admit it still. One interrupted
	 * before it asks is decided as any other, and stays interrupted: else each of its decisions
	 * would fail at once, and {@code fail-open} admit them all, whatever the limit.
	 */
	private ScriptArguments.@Nullable Reply decideAndWait(ScriptArguments arguments, byte[][] redisKeys, long cost,
			long maxWaitNanos, boolean commit) {
		boolean interruptedBefore = Thread.interrupted();
		try {
			return sendAndWait(arguments, redisKeys, cost, maxWaitNanos, commit);
		}
		finally {
			if (interruptedBefore) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Sends a decision and waits for it, as {@link #decideAndWait} says. */
	private ScriptArguments.@Nullable Reply sendAndWait(ScriptArguments arguments, byte[][] redisKeys, long cost,
			long maxWaitNanos, boolean commit) {
		CompletableFuture<List<?>> sent = send(arguments, redisKeys, cost, maxWaitNanos, commit, false);
		CompletableFuture<ScriptArguments.@Nullable Reply> decided = decided(redisKeys, cost, commit, sent, REPLY,
				false);
		try {
			return decided.get(this.timeoutNanos, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			// decides the waiting future at once, as a failure (unless the reply has just come)
			sent.completeExceptionally(ex);
			return decided.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			if (decided.cancel(false)) {
				log(failure(redisKeys, "decision", ex));
				return null;
			}
			return decided.getNow(null);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("Redis decision failed unexpectedly", ex.getCause());
		}
	}

	/**
	 * Sends a decision's script, with the latest server time at which it may still run. The
	 * arguments are the ones the keys were chosen by: with the pause's key exactly when they
	 * read it, whatever settings come meanwhile.
	 */
	private CompletableFuture<List<?>> send(ScriptArguments settings, byte[][] redisKeys, long cost,
			long maxWaitNanos, boolean commit, boolean timed) {
		byte[][] arguments = settings.decide(commit, cost, ScriptArguments.micros(maxWaitNanos), deadline(),
				this.typicalHoldMicros);
		return this.runner.run(settings.decideScript(), redisKeys, arguments, this.timeoutNanos, timed,
				(raw) -> decidedTooLate(redisKeys, cost, commit, raw));
	}

	/**
	 * The latest server time at which a command sent now may still run, in microseconds: one
	 * decision timeout from now on the server's clock, as far as this store knows it; 0 (none)
	 * before the first reply taught it.
	 */
	private long deadline() {
		ClockOffset offset = this.clockOffset;
		return offset.known() ? System.nanoTime() / 1000 + offset.estimate() + this.timeoutNanos / 1000 : 0;
	}

	/**
	 * A decision whose reply came after its caller was told of a failure: Redis ran it before its
	 * deadline, and the reply was slow to come back. What it took is given back, as if never asked.
	 */
	private void decidedTooLate(byte[][] redisKeys, long cost, boolean commit, List<?> raw) {
		ScriptArguments.Reply reply = ScriptArguments.Reply.parse(raw);
		if (admitted(commit, reply)) {
			giveBack(redisKeys, cost, reply);
		}
	}

	/**
	 * The outcome of a decision sent: made of Redis's reply when it comes, or of {@code null} when
	 * Redis failed (counted). Should the caller cancel it before Redis admits the call, what the
	 * call took is given back.
	 * @param async whether the caller does not wait for it: then a reply or a timeout that comes
	 * later is made into the outcome, and the caller's continuations run, on the scheduler
	 */
	private <T> CompletableFuture<T> decided(byte[][] redisKeys, long cost, boolean commit,
			CompletableFuture<List<?>> sent, Function<ScriptArguments.@Nullable Reply, T> outcome, boolean async) {
		CompletableFuture<T> decided = new CompletableFuture<>();
		whenComplete(sent, async, (raw, ex) -> {
			ScriptArguments.Reply reply = null;
			Throwable failure = ex;
			if (failure == null) {
				try {
					reply = ScriptArguments.Reply.parse(raw);
					learnClockOffset(reply.now() - System.nanoTime() / 1000);
					if (reply.status() < 0) {
						failure = new TimeoutException("Redis ran the decision after its deadline");
						reply = null;
					}
				}
				catch (RuntimeException unexpected) {
					failure = unexpected;
					reply = null;
				}
			}
			String news = (failure != null) ? failure(redisKeys, "decision", failure) : answered(redisKeys);
			T decision;
			try {
				decision = outcome(redisKeys, cost, commit, reply, outcome);
			}
			catch (RuntimeException | Error unexpected) {
				// Never leave the caller waiting: it hears of the fault.
				decided.completeExceptionally(unexpected);
				log(news);
				return;
			}
			if (!decided.complete(decision) && admitted(commit, reply)) {
				// the caller gave up meanwhile: as if it had never asked
				giveBack(redisKeys, cost, reply);
			}
			log(news);
		});
		return decided;
	}

	/**
	 * Makes what the caller gets of a reply ({@code null} when Redis failed); should that fail, the
	 * call is given back, so that nothing is kept for a caller who hears only of the fault.
	 */
	private <T> T outcome(byte[][] redisKeys, long cost, boolean commit, ScriptArguments.@Nullable Reply reply,
			Function<ScriptArguments.@Nullable Reply, T> outcome) {
		try {
			return outcome.apply(reply);
		}
		catch (RuntimeException | Error unexpected) {
			if (admitted(commit, reply)) {
				giveBack(redisKeys, cost, reply);
			}
			throw unexpected;
		}
	}

	private static boolean admitted(boolean commit, ScriptArguments.@Nullable Reply reply) {
		return commit && reply != null && reply.status() == 1;
	}

	/**
	 * Gives back a call its caller never had, without waiting: sent from the scheduler, as this runs
	 * on whichever thread completed the decision (Lettuce's, see {@link RedisScriptRunner#continuations()}).
	 */
	private void giveBack(byte[][] redisKeys, long cost, ScriptArguments.Reply reply) {
		this.runner.continuations()
			.execute(() -> run(redisKeys, Script.GIVE_BACK, this.arguments.giveBack(reply, cost), "give-back", true));
	}

	private Reservation reservationOf(String key, byte[][] redisKeys, long cost, ScriptArguments.@Nullable Reply reply) {
		if (reply == null) {
			return Reservation.settled(failed(key));
		}
		RateLimitDecision decision = decision(key, reply, true);
		return decision.isPermitted() ? new Taken(redisKeys, cost, reply, decision) : Reservation.settled(decision);
	}

	/**
	 * The decision of a reply, or the failure policy's without one.
	 * @param spread whether a paused key's caller is told a resumption within the spread of
	 * resumptions, or (inspecting) the end of the pause
	 */
	private RateLimitDecision decisionOf(String key, ScriptArguments.@Nullable Reply reply, boolean spread) {
		return (reply != null) ? decision(key, reply, spread) : failed(key);
	}

	/**
	 * Learns the server's clock from a reply's time ({@link ClockOffset}: the largest observation
	 * of the last second or two, so that it can shrink as well as grow).
	 * @param observed the reply's server time minus ours, in microseconds
	 */
	private void learnClockOffset(long observed) {
		long now = this.ticker.read();
		// most replies teach nothing new: they need no lock
		if (this.clockOffset.teachesNothing(observed, now)) {
			return;
		}
		synchronized (this) {
			this.clockOffset = this.clockOffset.observe(observed, now);
		}
	}

	/**
	 * Runs a give-back or a permit return without waiting for it; a failure is counted, and the
	 * future completes normally either way.
	 */
	private CompletableFuture<Void> run(byte[][] redisKeys, Script script, byte[][] arguments, String what,
			boolean async) {
		CompletableFuture<Void> done = new CompletableFuture<>();
		whenComplete(this.runner.run(script, redisKeys, arguments, this.timeoutNanos), async, (reply, ex) -> {
			String news = (ex != null) ? failure(redisKeys, what, ex) : answered(redisKeys);
			done.complete(null);
			log(news);
		});
		return done;
	}

	/**
	 * Returns a permit without waiting for it; the future completes normally either way. A failure
	 * keeps the return to be sent again (see {@link #unsentReturns}), and is counted unless the
	 * return is one sent again: it was counted when it first failed. A return sent again does not
	 * teach the typical hold time: it comes as late as Redis was out.
	 */
	private CompletableFuture<Void> returnPermit(PermitReturn permit, boolean again, boolean async) {
		byte[][] arguments = this.arguments.release(permit.sequence(), permit.at(), !again, this.typicalHoldMicros);
		CompletableFuture<Void> done = new CompletableFuture<>();
		whenComplete(this.runner.run(Script.RELEASE, permit.redisKeys(), arguments, this.timeoutNanos), async,
				(reply, ex) -> returned(permit, again, reply, ex, done));
		return done;
	}

	/** What a permit's return did: a failure keeps it to be sent again; completes {@code done} either way. */
	private void returned(PermitReturn permit, boolean again, @Nullable List<?> reply, @Nullable Throwable ex,
			CompletableFuture<Void> done) {
		if (ex == null) {
			learnTypicalHold(reply);
			String news = answered(permit.redisKeys());
			done.complete(null);
			log(news);
			return;
		}
		if (this.unsentCount.incrementAndGet() <= MAX_UNSENT_RETURNS) {
			// kept before the failure marks the server failing: its next answer sends it
			this.unsentReturns.add(permit);
		}
		else {
			this.unsentCount.decrementAndGet();
		}
		String news = again ? null : failure(permit.redisKeys(), "permit-return", ex);
		done.complete(null);
		log(news);
	}

	/**
	 * Keeps the typical hold a permit's return replied, the key's, as the limiter's: a key's own goes
	 * with its state once the key is back to new (its last permit returned, its bucket full, its
	 * windows empty), and the next decisions of the key, and its next state, go on from this one,
	 * as the in-memory store keeps one typical hold per limiter.
	 */
	private void learnTypicalHold(@Nullable List<?> reply) {
		if (reply != null && reply.size() > 1 && reply.get(1) instanceof Long hold && hold > 0) {
			this.typicalHoldMicros = hold;
		}
	}

	/**
	 * Runs an action once a command's future completes: on the thread at hand when it is complete,
	 * else, for a caller who does not wait for it ({@code async}), on the scheduler
	 * ({@link RedisScriptRunner#continuations()}), so that neither the action nor the caller's
	 * continuations run on Lettuce's event loop or a timer's thread.
	 */
	private <T> void whenComplete(CompletableFuture<T> future, boolean async,
			BiConsumer<? super T, ? super Throwable> action) {
		if (async && !future.isDone()) {
			future.whenCompleteAsync(action, this.runner.continuations());
		}
		else {
			future.whenComplete(action);
		}
	}

	/**
	 * Sends again the permit returns kept when they failed, each once, or, while they are being
	 * sent, once more when that is done; those failing again are kept again.
	 */
	private void sendUnsentReturns() {
		// asked first: whoever sends them now, or finishes sending them, sees it
		this.resendRequested.set(true);
		if (this.resending.compareAndSet(false, true)) {
			this.resendRequested.set(false);
			this.lastResend.set(this.ticker.read());
			// off the thread that saw the answer, before the caller has its decision
			this.runner.continuations().execute(() -> sendUnsentReturns(this.unsentCount.get()));
		}
	}

	/**
	 * Sends the next {@code left} kept returns one after another, each when the one before is
	 * done: all at once, thousands of them would hold up the decisions behind them, time out,
	 * and make Redis look out again.
	 */
	private void sendUnsentReturns(int left) {
		for (int n = left; n > 0; n--) {
			PermitReturn unsent = this.unsentReturns.poll();
			if (unsent == null) {
				break;
			}
			this.unsentCount.decrementAndGet();
			// sent from the scheduler, and the rest chained on the scheduler
			CompletableFuture<Void> sent = returnPermit(unsent, true, true);
			if (!sent.isDone()) {
				// on with the rest once Redis answered (those failing at once are looped through here)
				int rest = n - 1;
				sent.thenRun(() -> sendUnsentReturns(rest));
				return;
			}
		}
		this.resending.set(false);
		if (this.resendRequested.get()) {
			sendUnsentReturns();
		}
	}

	/**
	 * Sends the kept returns again when they were last sent {@link #RESEND_INTERVAL_NANOS} ago: a
	 * return kept while no server is failing (after a failover, or one failing again as it was
	 * sent) would otherwise wait for the next outage to end, or for its lease to time out.
	 */
	private void resendNowAndThen() {
		long now = this.ticker.read();
		long last = this.lastResend.get();
		if (now - last >= RESEND_INTERVAL_NANOS && this.lastResend.compareAndSet(last, now)) {
			sendUnsentReturns();
		}
	}

	/** A permit to return: the Redis keys of its key, its lease's number and when it began. */
	private record PermitReturn(byte[][] redisKeys, long sequence, long at) {
	}

	/** Waits for a give-back, a permit return or a reset; an interrupted caller stops waiting. */
	private static void awaitDone(CompletableFuture<Void> done) {
		try {
			done.get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("Redis command failed unexpectedly", ex.getCause());
		}
	}

	/**
	 * Counts a failure and tells the listeners; what to log when it starts a run of failures of the
	 * key's server.
	 */
	private @Nullable String failure(byte[][] redisKeys, String what, Throwable ex) {
		this.errors.increment();
		if (!this.listeners.isEmpty()) {
			Listeners.tell(this.listeners, (listener) -> listener.onStoreFailure(this.limiterName, TYPE, what, ex),
					logger, "Store failure listener");
		}
		String route = this.runner.route(redisKeys[0]);
		if (this.failingRoutes.add(route)) {
			return "Rate limiter '" + this.limiterName + "': Redis" + RedisScriptRunner.where(route) + " " + what
					+ " failed, deciding "
					+ SettingsText.of(this.settings.onStoreFailure())
					+ " until it answers again: "
					+ RedisScriptRunner.describe(ex);
		}
		return null;
	}

	/**
	 * The key's server answered: what to log when that ends its run of failures, which also sends
	 * the failed permit returns again. An answer also ends failures of the connection itself
	 * (recorded before a cluster's nodes were known).
	 */
	private @Nullable String answered(byte[][] redisKeys) {
		if (this.unsentCount.get() > 0) {
			resendNowAndThen();
		}
		if (this.failingRoutes.isEmpty()) {
			return null;
		}
		String route = this.runner.route(redisKeys[0]);
		if (this.failingRoutes.remove(route) | this.failingRoutes.remove(RedisScriptRunner.SERVER)) {
			// those of a server still out fail again at once, and wait for its own answer
			sendUnsentReturns();
			return "Rate limiter '" + this.limiterName + "': Redis" + RedisScriptRunner.where(route) + " answers again";
		}
		return null;
	}

	/** Logs last, after the caller's future is complete: logging may block (a console). */
	private static void log(@Nullable String news) {
		if (news != null) {
			logger.log(news.endsWith("answers again") ? System.Logger.Level.INFO : System.Logger.Level.WARNING, news);
		}
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

	private RateLimitDecision decision(String key, ScriptArguments.Reply reply, boolean spread) {
		if (reply.status() == ScriptArguments.Reply.PAUSED) {
			return paused(key, reply, spread);
		}
		List<RateLimitDecision.Quota> quotas = new ArrayList<>();
		long[] numbers = reply.quotas();
		int next = 0;
		TokenBucketSettings bucket = this.settings.tokenBucket();
		if (bucket != null) {
			quotas.add(new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.TOKEN_BUCKET, bucket.capacity(),
					fullRefillOf(bucket), numbers[0], micros(numbers[1])));
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

	/**
	 * The decision for a call of a paused key, by the rules every store shares
	 * ({@link KeyPause#decision}), on the server's clock in nanoseconds.
	 */
	private RateLimitDecision paused(String key, ScriptArguments.Reply reply, boolean spread) {
		long now = TimeUnit.MICROSECONDS.toNanos(reply.now());
		KeyPause pause = new KeyPause(now + TimeUnit.MICROSECONDS.toNanos(reply.retryAfterMicros()),
				TimeUnit.MICROSECONDS.toNanos(reply.pauseLengthMicros()));
		return pause.decision(this.limiterName, key, this.settings, now,
				spread ? ThreadLocalRandom.current().nextDouble() : 0);
	}

	private static Duration micros(long micros) {
		return Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(Math.max(0, micros)));
	}

	/** {@link #fullRefill(TokenBucketSettings)} of the current settings' bucket, kept while they are current. */
	private Duration fullRefillOf(TokenBucketSettings bucket) {
		BucketRefill known = this.bucketRefill;
		if (known == null || known.bucket() != bucket) {
			known = new BucketRefill(bucket, fullRefill(bucket));
			this.bucketRefill = known;
		}
		return known.fullRefill();
	}

	/** A bucket's settings and the time it takes to refill from empty. */
	private record BucketRefill(TokenBucketSettings bucket, Duration fullRefill) {
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

		/** The Redis keys of the call's key, as its decision used them. */
		private final byte[][] redisKeys;

		private final long cost;

		private final ScriptArguments.Reply reply;

		private final RateLimitDecision decision;

		private boolean done;

		Taken(byte[][] redisKeys, long cost, ScriptArguments.Reply reply, RateLimitDecision decision) {
			this.redisKeys = redisKeys;
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
			awaitDone(giveBack(false));
		}

		@Override
		public void release() {
			awaitDone(returnPermit(false));
		}

		/**
		 * Sends the give-back without waiting for Redis's answer; the future completes when it is
		 * done (normally, also when Redis failed it, which is counted), on the scheduler when Redis
		 * answers later.
		 */
		@Override
		public CompletableFuture<Void> cancelAsync() {
			return giveBack(true);
		}

		/**
		 * Sends the permit's return without waiting for Redis's answer; the future completes when it
		 * is done (normally, also when Redis failed it, which is counted), on the scheduler when
		 * Redis answers later.
		 */
		@Override
		public CompletableFuture<Void> releaseAsync() {
			return returnPermit(true);
		}

		private CompletableFuture<Void> giveBack(boolean async) {
			return finish() ? run(this.redisKeys, Script.GIVE_BACK, arguments.giveBack(this.reply, this.cost), "give-back",
					async) : CompletableFuture.completedFuture(null);
		}

		private CompletableFuture<Void> returnPermit(boolean async) {
			return (settings.maxConcurrent() > 0 && finish()) ? RedisRateLimitStore.this
				.returnPermit(new PermitReturn(this.redisKeys, this.reply.sequence(), this.reply.at()), false, async)
					: CompletableFuture.completedFuture(null);
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
