package dev.resilience.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * Runs the rate-limiter script on one Redis server or cluster, for every limiter of the
 * application that uses the Redis store, and bounds each call by a deadline.
 * <p>
 * The script goes by {@code EVALSHA}; a server that does not know it yet (a new server, one that
 * restarted, or a cluster node seeing it for the first time) answers {@code NOSCRIPT}, and the
 * call is made again by {@code EVAL}, which also caches the script there. So the script is loaded
 * once per server and each decision is one command.
 * <p>
 * The connection is opened on first use, never at startup, on a thread of its own: an
 * application starts while Redis is down, and a caller waits for a connection no longer than its
 * deadline. Commands are asynchronous and awaited with a timeout, so a caller is back on time even
 * when the server hangs with the connection open (a process stopped with {@code SIGSTOP}), which
 * a socket timeout would not notice; a command given up on is cancelled, so Lettuce does not send
 * it after reconnecting.
 */
public final class RedisScriptRunner {

	private static final String SCRIPT = "rate_limiter.lua";

	private static final byte[] SCRIPT_TEXT = load();

	private static final String SHA = sha1(SCRIPT_TEXT);

	private final Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector;

	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

	/** The connection being opened, or the last attempt that failed; guarded by this. */
	private @Nullable CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connecting;

	/**
	 * Creates a runner that opens its connection on first use.
	 * @param connector opens the connection (may block); Lettuce reconnects it by itself after that
	 */
	public RedisScriptRunner(Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector) {
		this.connector = Objects.requireNonNull(connector, "connector");
	}

	/**
	 * Runs the script.
	 * @param keys the script's keys
	 * @param arguments its arguments
	 * @param deadline the {@link System#nanoTime()} by which to give up
	 * @return the script's reply
	 * @throws TimeoutException if the deadline passed first
	 * @throws ExecutionException if Redis failed the command
	 * @throws InterruptedException if the thread was interrupted
	 */
	List<?> run(byte[][] keys, byte[][] arguments, long deadline)
			throws TimeoutException, ExecutionException, InterruptedException {
		RedisClusterAsyncCommands<byte[], byte[]> commands = commands(deadline);
		try {
			return await(commands.evalsha(SHA, ScriptOutputType.MULTI, keys, arguments), deadline);
		}
		catch (ExecutionException ex) {
			if (!(ex.getCause() instanceof RedisNoScriptException)) {
				throw ex;
			}
			return await(commands.eval(SCRIPT_TEXT, ScriptOutputType.MULTI, keys, arguments), deadline);
		}
	}

	/**
	 * Asks the server whether it is there.
	 * @param deadline the {@link System#nanoTime()} by which to give up
	 * @throws Exception if it did not answer in time
	 */
	void ping(long deadline) throws Exception {
		await(commands(deadline).ping(), deadline);
	}

	/**
	 * Starts opening the connection, unless it is open or being opened, without waiting for it.
	 */
	public void connectInBackground() {
		if (this.commands == null) {
			connect();
		}
	}

	private RedisClusterAsyncCommands<byte[], byte[]> commands(long deadline)
			throws TimeoutException, ExecutionException, InterruptedException {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.commands;
		return (commands != null) ? commands : await(connect(), deadline);
	}

	private synchronized CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connect() {
		CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connecting = this.connecting;
		if (connecting == null || connecting.isCompletedExceptionally()) {
			// One attempt at a time, on a thread that is not the caller's: the caller's wait is
			// bounded by its deadline, however long connecting takes.
			connecting = CompletableFuture.supplyAsync(() -> {
				RedisClusterAsyncCommands<byte[], byte[]> opened = this.connector.get();
				this.commands = opened;
				return opened;
			}, (task) -> {
				Thread thread = new Thread(task, "resilience-redis-connect");
				thread.setDaemon(true);
				thread.start();
			});
			this.connecting = connecting;
		}
		return connecting;
	}

	private static <T> T await(Future<T> future, long deadline)
			throws TimeoutException, ExecutionException, InterruptedException {
		try {
			return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException | InterruptedException ex) {
			future.cancel(false);
			throw ex;
		}
	}

	private static byte[] load() {
		try (InputStream in = RedisScriptRunner.class.getResourceAsStream(SCRIPT)) {
			if (in == null) {
				throw new IllegalStateException("missing " + SCRIPT + " beside " + RedisScriptRunner.class.getName());
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

	@Override
	public String toString() {
		return "RedisScriptRunner[" + ((this.commands != null) ? "connected" : "not connected") + "]";
	}

}
