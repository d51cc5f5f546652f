package dev.resilience.ratelimit.redis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.protocol.ConnectionIntent;
import org.jspecify.annotations.Nullable;

import dev.resilience.Ticker;

/**
 * Runs the rate limiter's scripts ({@link Script}) on one Redis server or cluster, for every
 * limiter of the application that uses the Redis store, and bounds each call by a timeout without
 * holding a thread.
 * <p>
 * A script goes by {@code EVALSHA}; a server that does not know it yet (a new server, one that
 * restarted, or a cluster node seeing it for the first time) answers {@code NOSCRIPT}, and the
 * call is made again by {@code EVAL}, which also caches the script there. The scripts are loaded
 * ({@code SCRIPT LOAD}) when the connection opens, so each script is loaded once per server and
 * each decision is one command.
 * <p>
 * <b>Connecting.</b> The application opens the connection while it starts and waits for it up to
 * {@code resilience.redis.connect-timeout} ({@link #connect(Duration)}), on a thread of its own:
 * with Redis up, the first decision is made by Redis. A command never waits for a connection
 * being opened: until it is open, it fails at once (and starts another attempt if the last one
 * failed and its gap has passed: attempts are paced by {@link ConnectPacing}, one in flight at
 * most, so a Redis that accepts connections and drops them is not asked hundreds of times a
 * second). Lettuce reconnects an open connection by itself, with its own delay.
 * <p>
 * <b>Threads.</b> Timeouts are timers of the scheduler given to the constructor (the application's
 * {@code resilienceScheduler}); the stores complete their asynchronous callers' futures there, and
 * send every command that follows from another's completion from there: never from Lettuce's
 * event loop ({@link #continuations()}).
 * <p>
 * <b>Timeouts.</b> Commands are asynchronous; each one's future is given up on at its timeout by a
 * timer, or by the caller who waits for it, so a caller is back on time even when the server hangs
 * with the connection open (a process stopped with {@code SIGSTOP}), which a socket timeout would
 * not notice. A command given up on is cancelled, so Lettuce does not send it after reconnecting.
 * <p>
 * <b>Outages.</b> A command fails at once, without being sent, while Redis is known to be out:
 * while the (standalone) connection is closed, and after a command to a server (a cluster node)
 * timed out or lost its connection, until that server answers again. Only the commands that find
 * an outage out wait for their timeout. Meanwhile one probe at a time per server (an
 * {@code EXISTS} of the key that met the outage, so that a cluster routes it to the same node),
 * started by the commands that fail at once, finds out when it answers again; its first answer
 * ends the outage. A reply with an error (a script error, {@code NOSCRIPT}, {@code CLUSTERDOWN})
 * is an answer, not an outage.
 */
public final class RedisScriptRunner {

	/** The default of {@code resilience.redis.connect-timeout}, which caps the gap between attempts. */
	private static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

	/** The one route of a standalone server (and of a cluster key whose node is not known). */
	static final String SERVER = "server";

	private static final System.Logger logger = System.getLogger(RedisScriptRunner.class.getName());

	private final Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector;

	private volatile @Nullable Connection connection;

	/** The connection being opened, or the last attempt that failed; guarded by this. */
	private @Nullable CompletableFuture<Connection> connecting;

	/** When the next attempt to connect may start; guarded by this. */
	private ConnectPacing pacing = ConnectPacing.READY;

	/** The longest gap between two attempts to connect, see {@link ConnectPacing#cap(Duration)}. */
	private final long connectGapCapNanos;

	/** Gives commands up at their timeout, and runs the continuations of asynchronous callers. */
	private final ScheduledExecutorService scheduler;

	/** Reads the time for the pacing of attempts to connect. */
	private final Ticker ticker;

	/** Set while a task of this class runs on the scheduler, see {@link #runOnScheduler}. */
	private static final ThreadLocal<Boolean> ON_SCHEDULER = new ThreadLocal<>();

	/** See {@link #continuations()}. */
	private final Executor continuations = this::continueWith;

	/** The servers (cluster nodes by id, or {@link #SERVER}) known to be out, with their probes. */
	private final ConcurrentMap<String, Outage> outages = new ConcurrentHashMap<>();

	/**
	 * Creates a runner that opens its connection when {@link #connect(Duration) asked to}, or on
	 * first use, with gaps between attempts as for the default {@code connect-timeout} (2 s), and
	 * its timeouts and continuations on a daemon thread of its own.
	 * @param connector opens the connection (may block); Lettuce reconnects it by itself after that
	 */
	public RedisScriptRunner(Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector) {
		this(connector, DEFAULT_CONNECT_TIMEOUT);
	}

	/**
	 * Creates a runner as {@link #RedisScriptRunner(Supplier)} does, whose gaps between attempts to
	 * connect grow up to the connect timeout (see {@link #connect(Duration)}).
	 * @param connector opens the connection (may block); Lettuce reconnects it by itself after that
	 * @param connectTimeout {@code resilience.redis.connect-timeout}
	 * @throws IllegalArgumentException if the connect timeout is negative
	 */
	public RedisScriptRunner(Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector, Duration connectTimeout) {
		this(connector, connectTimeout, OwnScheduler.INSTANCE, Ticker.system());
	}

	/**
	 * Creates a runner that opens its connection when {@link #connect(Duration) asked to}, or on
	 * first use. While attempts fail, at most one is in flight, and the next starts no sooner than
	 * 100 ms after a failure, a gap that doubles with each failure in a row up to the connect
	 * timeout, within [100 ms, 5 s] (5 s when it is zero).
	 * @param connector opens the connection (may block); Lettuce reconnects it by itself after that
	 * @param connectTimeout {@code resilience.redis.connect-timeout}
	 * @param scheduler gives commands up at their timeout, and runs the continuations of the
	 * asynchronous decisions that Redis, or a timeout, completes (the application's
	 * {@code resilienceScheduler}): never Lettuce's event loop, which every Redis command of the
	 * application waits on
	 * @param ticker the time of the gaps between attempts to connect
	 * @throws IllegalArgumentException if the connect timeout is negative
	 */
	public RedisScriptRunner(Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector, Duration connectTimeout,
			ScheduledExecutorService scheduler, Ticker ticker) {
		this.connector = Objects.requireNonNull(connector, "connector");
		if (connectTimeout.isNegative()) {
			throw new IllegalArgumentException(
					"resilience.redis.connect-timeout must not be negative but was " + connectTimeout);
		}
		this.connectGapCapNanos = ConnectPacing.cap(connectTimeout);
		this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
		this.ticker = Objects.requireNonNull(ticker, "ticker");
	}

	/**
	 * Opens the connection, unless it is open, and waits for it up to the timeout, trying again
	 * while attempts fail before then (Redis may be starting beside the application), with the
	 * gaps every attempt keeps. For application startup: the attempt in progress at the timeout
	 * goes on in the background.
	 * @param timeout the longest wait; zero starts an attempt without waiting
	 * @return whether the connection is open
	 * @throws IllegalArgumentException if the timeout is negative
	 */
	public boolean connect(Duration timeout) {
		if (timeout.isNegative()) {
			throw new IllegalArgumentException("timeout must not be negative but was " + timeout);
		}
		long deadline = System.nanoTime() + timeout.toNanos();
		try {
			while (this.connection == null) {
				if (!attempt(deadline)) {
					return false;
				}
			}
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Waits for an attempt to connect up to the deadline and, when it failed, for the gap before the
	 * next one.
	 * @return whether there is time left for another attempt, if one is needed
	 */
	private boolean attempt(long deadline) throws InterruptedException {
		try {
			connect().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			return true;
		}
		catch (ExecutionException ex) {
			long gap;
			synchronized (this) {
				gap = this.pacing.nanosUntilNext(this.ticker.read());
			}
			long pause = Math.min(gap, deadline - System.nanoTime());
			if (pause <= 0) {
				return gap <= 0;
			}
			TimeUnit.NANOSECONDS.sleep(pause);
			return true;
		}
		catch (TimeoutException ex) {
			return false;
		}
	}

	/**
	 * Forgets the connection, and any attempt to open one, so that the next command (or
	 * {@link #connect(Duration)}) opens it again through the connector: for a connection closed
	 * for good, as when the application context is stopped ({@code Lifecycle.stop()}), which closes
	 * Spring Data Redis's connection, and started again. Lettuce does not reopen such a connection.
	 */
	public synchronized void disconnect() {
		this.connection = null;
		this.connecting = null;
		this.pacing = ConnectPacing.READY;
		this.outages.clear();
	}

	/**
	 * Starts opening the connection, unless it is open or being opened, or the gap after the last
	 * failed attempt has not passed, without waiting for it.
	 */
	public void connectInBackground() {
		if (this.connection == null) {
			connect();
		}
	}

	/**
	 * Runs the script, without waiting for it: the future completes with the script's reply, or
	 * exceptionally with a {@link TimeoutException} once the timeout has passed, with the
	 * {@link RedisUnavailableException} of a known outage, or with Redis's failure. It completes on
	 * a thread of Lettuce or of the scheduler (a timeout), or at once when Redis is known to be out; cancelling it
	 * gives the command up as the timeout does (the server may still run it).
	 * @param keys the script's keys (all in one hash slot)
	 * @param arguments its arguments
	 * @param timeoutNanos the longest wait for the reply
	 * @return the reply, when it arrives
	 */
	CompletableFuture<List<?>> run(Script script, byte[][] keys, byte[][] arguments, long timeoutNanos) {
		return run(script, keys, arguments, timeoutNanos, true);
	}

	/**
	 * Runs the script as {@link #run(Script, byte[][], byte[][], long)} does; when {@code timed} is
	 * false, no timer ends the wait: the caller, who waits for the future itself, completes it
	 * exceptionally with a {@link TimeoutException} when it stops waiting, and the command is given
	 * up on as at the timer's timeout. A thread that waits anyway times its own wait for free,
	 * where a timer costs every command a shared, locked queue.
	 * @param keys the script's keys (all in one hash slot)
	 * @param arguments its arguments
	 * @param timeoutNanos the longest wait for the reply (and for a probe of an out server)
	 * @param timed whether a timer ends the wait at the timeout
	 * @return the reply, when it arrives
	 */
	CompletableFuture<List<?>> run(Script script, byte[][] keys, byte[][] arguments, long timeoutNanos,
			boolean timed) {
		return run(script, keys, arguments, timeoutNanos, timed, null);
	}

	/**
	 * Runs the script as {@link #run(Script, byte[][], byte[][], long, boolean)} does, and hands a
	 * reply that comes after the future was completed without it (the timeout passed, or the caller
	 * stopped waiting) to {@code late}, on a thread of Lettuce: the server ran the script, and the
	 * caller, who heard of a failure, may undo what it did. Such a reply also ends an outage.
	 * @param keys the script's keys (all in one hash slot)
	 * @param arguments its arguments
	 * @param timeoutNanos the longest wait for the reply (and for a probe of an out server)
	 * @param timed whether a timer ends the wait at the timeout
	 * @param late takes a reply that came too late, or {@code null} to drop it
	 * @return the reply, when it arrives
	 */
	CompletableFuture<List<?>> run(Script script, byte[][] keys, byte[][] arguments, long timeoutNanos,
			boolean timed, @Nullable Consumer<List<?>> late) {
		return send(keys[0], timeoutNanos, timed,
				(commands) -> commands.evalsha(script.sha, ScriptOutputType.MULTI, keys, arguments),
				(commands) -> commands.eval(script.text, ScriptOutputType.MULTI, keys, arguments), late);
	}

	/**
	 * Deletes keys ({@code UNLINK}: the server frees them in the background), as
	 * {@link #run(Script, byte[][], byte[][], long)} runs a script.
	 * @param keys the keys (all in one hash slot)
	 * @param timeoutNanos the longest wait for the reply
	 * @return how many keys there were, when the reply arrives
	 */
	CompletableFuture<Long> unlink(byte[][] keys, long timeoutNanos) {
		return send(keys[0], timeoutNanos, true, (commands) -> commands.unlink(keys), (commands) -> commands.unlink(keys),
				null);
	}

	/**
	 * Returns the server a key lives on, as outages are told apart: a cluster's node, else (and
	 * before the connection is open) {@link #SERVER}.
	 * @param key a Redis key
	 * @return the route
	 */
	String route(byte[] key) {
		Connection connection = this.connection;
		return (connection != null) ? connection.route(key) : SERVER;
	}

	/**
	 * Asks the server whether it is there, waiting up to the deadline (for the connection too).
	 * An answer ends a standalone server's outage.
	 * @param deadline the {@link System#nanoTime()} by which to give up
	 * @throws Exception if it did not answer in time
	 */
	void ping(long deadline) throws Exception {
		Connection connection = this.connection;
		if (connection == null) {
			connection = await(connect(), deadline);
		}
		await(bounded(connection.commands.ping(), deadline - System.nanoTime()), deadline);
		if (!connection.cluster()) {
			log(answered(SERVER));
		}
	}

	private <T> CompletableFuture<T> send(byte[] key, long timeoutNanos, boolean timed,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> command,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> afterNoScript,
			@Nullable Consumer<T> late) {
		Connection connection = this.connection;
		if (connection == null) {
			// starts an attempt only when the last one's gap has passed: see ConnectPacing
			connectInBackground();
			return CompletableFuture.failedFuture(new RedisUnavailableException("not connected yet"));
		}
		if (!connection.isOpen()) {
			// Lettuce reconnects by itself; it would hold the command until then
			return CompletableFuture.failedFuture(new RedisUnavailableException("connection lost, reconnecting"));
		}
		String route = connection.route(key);
		Outage outage = this.outages.get(route);
		if (outage != null) {
			probe(connection, route, outage, key, timeoutNanos);
			return CompletableFuture.failedFuture(new RedisUnavailableException(outage.cause));
		}
		// A command given up on is not cancelled: the server may have run it, and its reply, when
		// it comes, goes to "late" (Lettuce would drop the reply of a cancelled command).
		CompletableFuture<T> reply = new CompletableFuture<>();
		CompletionStage<T> first;
		try {
			first = command.apply(connection.commands);
		}
		catch (RuntimeException ex) {
			// a connection closed for good refuses commands at once
			log(out(route, ex));
			return CompletableFuture.failedFuture(ex);
		}
		first.whenComplete((value, ex) -> {
			if (ex != null && cause(ex) instanceof RedisNoScriptException) {
				if (reply.isDone()) {
					return; // given up on: not run at all, rather than run for nobody
				}
				// not from Lettuce's thread, which completed the first command: see continuations()
				continuations().execute(() -> afterNoScript.apply(connection.commands)
					.whenComplete((retried, failure) -> settle(reply, retried, failure, route, late)));
			}
			else {
				settle(reply, value, ex, route, late);
			}
		});
		// what the outcome tells of the server is recorded before the caller hears of it, so that
		// the caller's next command knows it
		CompletableFuture<T> result = new CompletableFuture<>();
		(timed ? timeOut(reply, timeoutNanos) : reply).whenComplete((value, ex) -> {
			Throwable cause = (ex != null) ? cause(ex) : null;
			String news = null;
			if (cause == null || cause instanceof RedisCommandExecutionException) {
				news = answered(route);
			}
			else if (!(cause instanceof CancellationException)) {
				news = out(route, cause);
			}
			settle(result, value, cause);
			// last: logging may block (a console), which must not keep the caller waiting
			log(news);
		});
		// the caller cancelled, or stopped waiting: the command is given up on as at a timeout
		result.whenComplete((value, ex) -> {
			if (ex instanceof CancellationException || ex instanceof TimeoutException) {
				reply.completeExceptionally(ex);
			}
		});
		return result;
	}

	/** Completes a command's reply, or hands it to {@code late} when the command was given up on. */
	private <T> void settle(CompletableFuture<T> reply, @Nullable T value, @Nullable Throwable ex, String route,
			@Nullable Consumer<T> late) {
		if (!settle(reply, value, ex) && ex == null && late != null) {
			log(answered(route));
			// it may send a command (a give-back): not from Lettuce's thread, see continuations()
			continuations().execute(() -> late.accept(value));
		}
	}

	/** Completes a future with a value or a failure; whether this completed it. */
	private static <T> boolean settle(CompletableFuture<T> reply, @Nullable T value, @Nullable Throwable ex) {
		if (ex != null) {
			return reply.completeExceptionally(cause(ex));
		}
		return reply.complete(value);
	}

	/** The server answered: its outage, if any, is over; what to log, if anything. */
	private @Nullable String answered(String route) {
		if (!this.outages.isEmpty() && this.outages.remove(route) != null) {
			return "Redis answers again" + where(route);
		}
		return null;
	}

	/** The server did not answer, or lost its connection: an outage, until it answers. */
	private @Nullable String out(String route, Throwable cause) {
		Outage outage = new Outage(describe(cause));
		if (this.outages.putIfAbsent(route, outage) == null) {
			return "Redis is out" + where(route) + ": " + outage.cause + "; commands fail at once until it answers";
		}
		return null;
	}

	private static void log(@Nullable String news) {
		if (news != null) {
			logger.log(news.startsWith("Redis is out") ? System.Logger.Level.WARNING : System.Logger.Level.INFO, news);
		}
	}

	/**
	 * Starts a probe of an out server, unless one is in flight: an {@code EXISTS} of a key that
	 * the server holds, given up on at the timeout.
	 */
	private void probe(Connection connection, String route, Outage outage, byte[] key, long timeoutNanos) {
		if (!outage.probing.compareAndSet(false, true)) {
			return;
		}
		CompletableFuture<Long> sent;
		try {
			sent = connection.commands.exists(key).toCompletableFuture();
		}
		catch (RuntimeException ex) {
			outage.probing.set(false);
			return;
		}
		bounded(sent, timeoutNanos).whenComplete((exists, ex) -> {
			outage.probing.set(false);
			if (ex == null || cause(ex) instanceof RedisCommandExecutionException) {
				if (this.outages.remove(route, outage)) {
					log("Redis answers again" + where(route));
				}
			}
		});
	}

	/**
	 * Completes the future exceptionally with a {@link TimeoutException} at the timeout, unless it
	 * is complete, on the scheduler: not on the JDK's shared delay thread, which
	 * {@link CompletableFuture#orTimeout} would run the caller's continuations on.
	 */
	private <T> CompletableFuture<T> timeOut(CompletableFuture<T> future, long timeoutNanos) {
		if (future.isDone()) {
			return future;
		}
		try {
			Future<?> timer = this.scheduler.schedule(
					() -> runOnScheduler(() -> future.completeExceptionally(new TimeoutException())),
					Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
			future.whenComplete((value, ex) -> timer.cancel(false));
		}
		catch (RejectedExecutionException ex) {
			// the scheduler is shut down (the application is closing): nothing else would end the wait
			future.completeExceptionally(new TimeoutException("the scheduler is shut down"));
		}
		return future;
	}

	/**
	 * Runs the continuations of asynchronous callers, and every command sent because another one
	 * completed (an {@code EVAL} after {@code NOSCRIPT}, a give-back, a permit return sent again):
	 * on the scheduler, never on Lettuce's event loop (which every Redis command of the application
	 * waits on) nor on a shared JDK thread; at once on a task of the scheduler (a timeout) that
	 * reaches it; on the thread at hand once the scheduler is shut down, as nothing else would run
	 * them. A command written from inside Lettuce's completion of another
	 * can re-enter its endpoint's {@code SharedLock} (see docs/redis.md, "Lettuce's SharedLock").
	 * @return the executor of continuations
	 */
	Executor continuations() {
		return this.continuations;
	}

	/** Runs a continuation inline on a task of the scheduler, else hands it to the scheduler. */
	private void continueWith(Runnable task) {
		if (ON_SCHEDULER.get() != null) {
			task.run();
			return;
		}
		try {
			this.scheduler.execute(() -> runOnScheduler(task));
		}
		catch (RejectedExecutionException ex) {
			task.run();
		}
	}

	/**
	 * Runs a task of the scheduler, marked as such: what it completes, it continues at once (a
	 * second hop would queue the decision behind whatever the task does next, such as logging).
	 */
	private static void runOnScheduler(Runnable task) {
		ON_SCHEDULER.set(Boolean.TRUE);
		try {
			task.run();
		}
		finally {
			ON_SCHEDULER.remove();
		}
	}

	/** A future that completes as the command does, or with a timeout, which cancels the command. */
	private <T> CompletableFuture<T> bounded(CompletionStage<T> command, long timeoutNanos) {
		CompletableFuture<T> result = new CompletableFuture<>();
		command.whenComplete((value, ex) -> settle(result, value, ex));
		timeOut(result, timeoutNanos).whenComplete((value, ex) -> {
			if (ex != null) {
				command.toCompletableFuture().cancel(false);
			}
		});
		return result;
	}

	/** How a log line names a route: nothing for the one server, the node of a cluster. */
	static String where(String route) {
		return SERVER.equals(route) ? "" : " (cluster node " + route + ")";
	}

	private synchronized CompletableFuture<Connection> connect() {
		CompletableFuture<Connection> connecting = this.connecting;
		if (connecting != null && !connecting.isCompletedExceptionally()) {
			return connecting; // open, or being opened
		}
		ConnectPacing started = this.pacing.start(this.ticker.read());
		if (started == null) {
			// the last attempt failed, and its gap has not passed: its failure stands meanwhile
			return Objects.requireNonNull(connecting);
		}
		this.pacing = started;
		// One attempt at a time, on a thread that is not the caller's: the caller's wait is
		// bounded by its deadline, however long connecting takes.
		CompletableFuture<?>[] attempt = new CompletableFuture<?>[1];
		connecting = CompletableFuture.supplyAsync(() -> {
			Connection opened;
			try {
				opened = new Connection(this.connector.get());
				opened.openNodes(this.connectGapCapNanos);
				// Sent ahead of any call, so that each script's first call is an EVALSHA too; not
				// awaited: should a load fail, that script's first call loads it by EVAL.
				for (Script script : Script.values()) {
					opened.commands.scriptLoad(script.text);
				}
			}
			catch (RuntimeException | Error ex) {
				synchronized (this) {
					// before the attempt's future fails: whoever sees it fail sees the gap
					if (this.connecting == attempt[0]) {
						this.pacing = this.pacing.failed(this.ticker.read(), this.connectGapCapNanos);
					}
				}
				throw ex;
			}
			synchronized (this) {
				// unless disconnect() forgot this attempt meanwhile: its connection may be closed
				if (this.connecting == attempt[0]) {
					this.connection = opened;
					this.pacing = ConnectPacing.READY;
				}
			}
			return opened;
		}, (task) -> {
			Thread thread = new Thread(task, "resilience-redis-connect");
			thread.setDaemon(true);
			thread.start();
		});
		attempt[0] = connecting;
		this.connecting = connecting;
		return connecting;
	}

	private static <T> T await(Future<T> future, long deadline)
			throws TimeoutException, ExecutionException, InterruptedException {
		try {
			return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof TimeoutException timeout) {
				throw timeout;
			}
			throw ex;
		}
	}

	/** What went wrong, from the exception of a future. */
	static Throwable cause(Throwable ex) {
		Throwable cause = ex;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/** A short description of what went wrong, for a log line or a health detail. */
	static String describe(Throwable ex) {
		Throwable cause = cause(ex);
		if (cause instanceof RedisUnavailableException) {
			return cause.getMessage();
		}
		String message = cause.getMessage();
		return cause.getClass().getSimpleName() + ((message != null) ? ": " + message : "");
	}

	@Override
	public String toString() {
		Connection connection = this.connection;
		String state = (connection == null) ? "not connected" : (!connection.isOpen() ? "reconnecting"
				: (this.outages.isEmpty() ? "connected" : "connected, out: " + this.outages.keySet()));
		return "RedisScriptRunner[" + state + "]";
	}

	/**
	 * The scripts, one per operation, each with the shared files it needs before its own text:
	 * {@code helpers.lua} (settings, clock, bucket arithmetic), then, but for the two shorter decide
	 * scripts, {@code state.lua} (the state of windows and leases, expiry), then, for the scripts
	 * that read or write exact windows' entries, {@code entries.lua} (their members), then, for the
	 * decide scripts, {@code decide_inputs.lua} (the call's inputs and deadline, and the key's pause).
	 * {@code pause.lua} needs none of them. Their arguments and reply are named by
	 * {@link ScriptArguments}. Resetting a key needs no script: it is an {@code UNLINK}.
	 */
	enum Script {

		/** Decides a call, or inspects: what a decision would say. */
		DECIDE("decide.lua", Script.HELPERS, Script.STATE, Script.ENTRIES, Script.DECIDE_INPUTS),
		/** Decides as {@link #DECIDE} does, for a limiter with a token bucket alone: a shorter run. */
		DECIDE_BUCKET("decide_bucket.lua", Script.HELPERS, Script.DECIDE_INPUTS),
		/**
		 * Decides as {@link #DECIDE} does, for a limiter with exact windows (and perhaps a token
		 * bucket) and no concurrency permits: a shorter run.
		 */
		DECIDE_WINDOW("decide_window.lua", Script.HELPERS, Script.ENTRIES, Script.DECIDE_INPUTS),
		/** Gives a call back, as if it had never been made. */
		GIVE_BACK("give_back.lua", Script.HELPERS, Script.STATE, Script.ENTRIES),
		/** Returns a call's concurrency permit. */
		RELEASE("release.lua", Script.HELPERS, Script.STATE),
		/** Pauses a key, extending the pause in force, never shortening it. */
		PAUSE("pause.lua");

		private static final String HELPERS = "helpers.lua";

		private static final String STATE = "state.lua";

		private static final String ENTRIES = "entries.lua";

		private static final String DECIDE_INPUTS = "decide_inputs.lua";

		private final byte[] text;

		private final String sha;

		Script(String name, String... shared) {
			ByteArrayOutputStream text = new ByteArrayOutputStream();
			for (String file : shared) {
				text.writeBytes(load(file));
				text.write('\n');
			}
			text.writeBytes(load(name));
			this.text = text.toByteArray();
			this.sha = sha1(this.text);
		}

		private static byte[] load(String name) {
			try (InputStream in = RedisScriptRunner.class.getResourceAsStream(name)) {
				if (in == null) {
					throw new IllegalStateException("missing " + name + " beside " + RedisScriptRunner.class.getName());
				}
				return in.readAllBytes();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		private static String sha1(byte[] text) {
			try {
				return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text));
			}
			catch (NoSuchAlgorithmException ex) {
				throw new IllegalStateException("SHA-1 is required of every Java platform", ex);
			}
		}

	}

	/**
	 * Redis is known to be out, so a command was not sent: the connection is not open yet or is
	 * lost, or the server did not answer lately. No stack trace: it is an expected outcome.
	 */
	static final class RedisUnavailableException extends Exception {

		private static final long serialVersionUID = 1L;

		RedisUnavailableException(String message) {
			super("Redis is out: " + message, null, false, false);
		}

	}

	/**
	 * The scheduler of runners made without one: one daemon thread, made on first use and shared.
	 */
	private static final class OwnScheduler {

		static final ScheduledExecutorService INSTANCE = create();

		private static ScheduledExecutorService create() {
			ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, (task) -> {
				Thread thread = new Thread(task, "resilience-redis-timer");
				thread.setDaemon(true);
				return thread;
			});
			scheduler.setRemoveOnCancelPolicy(true);
			return scheduler;
		}

	}

	/** One server's outage: what it was, and whether a probe is in flight. */
	private static final class Outage {

		private final String cause;

		private final AtomicBoolean probing = new AtomicBoolean();

		Outage(String cause) {
			this.cause = cause;
		}

	}

	/** The open connection, which tells whether it is connected and where a key lives. */
	private static final class Connection {

		private final RedisClusterAsyncCommands<byte[], byte[]> commands;

		/** A standalone connection, which Lettuce knows to be open or not; else {@code null}. */
		private final @Nullable StatefulConnection<byte[], byte[]> standalone;

		private final @Nullable StatefulRedisClusterConnection<byte[], byte[]> clustered;

		Connection(RedisClusterAsyncCommands<byte[], byte[]> commands) {
			this.commands = Objects.requireNonNull(commands, "the connector returned no connection");
			this.standalone = (commands instanceof RedisAsyncCommands<byte[], byte[]> async) ? async.getStatefulConnection()
					: null;
			this.clustered = (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> async)
					? async.getStatefulConnection() : null;
		}

		boolean isOpen() {
			StatefulConnection<byte[], byte[]> standalone = this.standalone;
			return standalone == null || standalone.isOpen();
		}

		boolean cluster() {
			return this.clustered != null;
		}

		/**
		 * Opens a cluster's connection to each master now, on the connecting thread, waiting for
		 * them at most {@code waitNanos} in all. Otherwise Lettuce opens a node's connection at its
		 * first command and writes that command (or its share of a {@code SCRIPT LOAD}) from inside
		 * the completion of the node's handshake, on the node's event loop: there Lettuce 7.5.2's
		 * {@code SharedLock} was seen to spin for good, every later writer to that node blocked
		 * (docs/internals/redis-store.md). A node not open in time is left to open at first use.
		 */
		void openNodes(long waitNanos) {
			StatefulRedisClusterConnection<byte[], byte[]> clustered = this.clustered;
			if (clustered == null) {
				return;
			}
			List<CompletableFuture<?>> opening = new ArrayList<>();
			for (RedisClusterNode node : clustered.getPartitions()) {
				RedisURI uri = node.getUri();
				if (node.getRole().isUpstream() && uri != null) {
					// By host and port, as Lettuce keys the connections that carry a slot's commands
					// and a SCRIPT LOAD to every master; one opened by node id would be another.
					opening.add(clustered.getConnectionAsync(uri.getHost(), uri.getPort(), ConnectionIntent.WRITE));
				}
			}
			try {
				CompletableFuture.allOf(opening.toArray(CompletableFuture[]::new)).get(waitNanos, TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (ExecutionException | TimeoutException ex) {
				// a node that cannot be reached now: the runner's outage handling meets it at its first command
			}
		}

		/** The server a key lives on: a cluster's master of its slot by node id, else one route. */
		String route(byte[] key) {
			StatefulRedisClusterConnection<byte[], byte[]> clustered = this.clustered;
			if (clustered == null) {
				return SERVER;
			}
			RedisClusterNode master = clustered.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
			return (master != null && master.getNodeId() != null) ? master.getNodeId() : SERVER;
		}

	}

}
