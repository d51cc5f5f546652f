package dev.resilience.ratelimit.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import java.time.Duration;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import dev.resilience.ratelimit.RateLimitStoreFactory;
import dev.resilience.ratelimit.StoreContractTests;

/**
 * A {@code redis-server} of the machine's, started on a free loopback port for tests, with no
 * persistence. A machine without {@code redis-server} on its {@code PATH} fails the tests that
 * need one, naming what to install: the Redis tests are part of the suite, never skipped.
 */
public final class RedisServer implements AutoCloseable {

	private static final String EXECUTABLE = "redis-server";

	private static RedisServer shared;

	private final int port;

	private final List<String> extra;

	private final Path directory;

	private Process process;

	private final List<AbstractRedisClient> clients = new ArrayList<>();

	private RedisServer(int port, Path directory, List<String> extra) {
		this.port = port;
		this.directory = directory;
		this.extra = extra;
	}

	/**
	 * Returns the server shared by the tests of this JVM, started on first use and stopped when
	 * the JVM exits.
	 * @return the server
	 */
	public static synchronized RedisServer shared() {
		if (shared == null) {
			shared = start();
			RedisServer server = shared;
			Runtime.getRuntime().addShutdownHook(new Thread(server::close));
		}
		return shared;
	}

	/**
	 * Starts a server of its own, which the test stops.
	 * @return the server
	 */
	public static RedisServer start() {
		return start(List.of());
	}

	static RedisServer start(List<String> extra) {
		try {
			RedisServer server = new RedisServer(freePort(), Files.createTempDirectory("redis"), extra);
			server.launch();
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Starts (or starts again, after {@link #kill()}) the process on the same port. */
	public void launch() {
		List<String> command = new ArrayList<>(List.of(executable(), "--port", Integer.toString(this.port), "--bind",
				"127.0.0.1", "--save", "", "--appendonly", "no", "--dir", this.directory.toString()));
		command.addAll(this.extra);
		try {
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(this.directory.resolve("redis.log").toFile())
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start " + command, ex);
		}
		watch(this.process.pid());
		awaitPing();
	}

	/**
	 * Kills the server when this JVM ends, even when nothing runs its shutdown hooks (a test JVM
	 * killed by a timeout, as PIT does with its minions), so no server outlives its tests.
	 */
	private static void watch(long pid) {
		long jvm = ProcessHandle.current().pid();
		String script = "while kill -0 " + jvm + " 2>/dev/null && kill -0 " + pid + " 2>/dev/null; do sleep 1; done; kill -9 "
				+ pid + " 2>/dev/null";
		try {
			new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).redirectOutput(new File("/dev/null")).start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String executable() {
		String path = System.getenv("PATH");
		if (path != null) {
			for (String dir : path.split(File.pathSeparator)) {
				File candidate = new File(dir, EXECUTABLE);
				if (candidate.canExecute()) {
					return candidate.getPath();
				}
			}
		}
		throw new IllegalStateException("The Redis tests need redis-server on the PATH (Debian/Ubuntu: apt-get install "
				+ "redis-server; macOS: brew install redis); .ci/run installs it");
	}

	private void awaitPing() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server exited: " + log());
			}
			try (Socket socket = new Socket("127.0.0.1", this.port)) {
				socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
				byte[] reply = new byte[7];
				if (socket.getInputStream().read(reply) > 0 && new String(reply, StandardCharsets.US_ASCII).startsWith("+PONG")) {
					return;
				}
			}
			catch (IOException ex) {
				// not listening yet
			}
			StoreContractTests.sleep(20);
		}
		throw new IllegalStateException("redis-server did not answer on port " + this.port + ": " + log());
	}

	private String log() {
		try {
			return Files.readString(this.directory.resolve("redis.log"));
		}
		catch (IOException ex) {
			return ex.toString();
		}
	}

	/**
	 * Returns the port.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Returns the server's URI.
	 * @return the URI
	 */
	public RedisURI uri() {
		return RedisURI.create("127.0.0.1", this.port);
	}

	/** Kills the process at once, as a crash would. */
	public void kill() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Freezes the process ({@code SIGSTOP}): connections stay open, nothing answers. */
	public void freeze() {
		signal("STOP");
	}

	/** Lets a frozen process go on ({@code SIGCONT}). */
	public void thaw() {
		signal("CONT");
	}

	private void signal(String name) {
		try {
			int exit = new ProcessBuilder("kill", "-" + name, Long.toString(this.process.pid())).start().waitFor();
			if (exit != 0) {
				throw new IllegalStateException("kill -" + name + " failed: " + exit);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Runs {@code redis-cli} against this server.
	 * @param arguments the command and its arguments
	 * @return what it printed
	 */
	public String cli(String... arguments) {
		List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(this.port)));
		command.addAll(List.of(arguments));
		return run(command);
	}

	static String run(List<String> command) {
		try {
			Process cli = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (cli.waitFor() != 0) {
				throw new IllegalStateException(command + " failed: " + output);
			}
			return output;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Returns how often the server ran a command since its statistics were last reset, from
	 * {@code INFO commandstats}.
	 * @param name the command, lower case
	 * @return the calls
	 */
	public long commandCalls(String name) {
		for (String line : cli("INFO", "commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_" + name + ":calls=")) {
				String calls = line.substring(("cmdstat_" + name + ":calls=").length());
				return Long.parseLong(calls.substring(0, calls.indexOf(',')));
			}
		}
		return 0;
	}

	/**
	 * Opens a Lettuce connection, as Spring Data Redis would.
	 * @return the connection's asynchronous commands
	 */
	public RedisClusterAsyncCommands<byte[], byte[]> connect() {
		RedisClient client = RedisClient.create(uri());
		this.clients.add(client);
		StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
		return connection.async();
	}

	/**
	 * Returns a script runner connected to this server, its connection open and its script loaded.
	 * @return the runner
	 */
	public RedisScriptRunner runner() {
		return warm(new RedisScriptRunner(this::connect));
	}

	static RedisScriptRunner warm(RedisScriptRunner runner) {
		try {
			runner.ping(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
			return runner;
		}
		catch (Exception ex) {
			throw new IllegalStateException("Redis did not answer", ex);
		}
	}

	@Override
	public void close() {
		this.clients.forEach((client) -> client.shutdown(0, 1, TimeUnit.SECONDS));
		if (this.process != null) {
			kill();
		}
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	/**
	 * Creates Redis stores on a runner, under a prefix.
	 * @param runner the runner
	 * @param keyPrefix the key prefix
	 * @param decisionTimeout the decision timeout
	 * @return the factory
	 */
	public static RateLimitStoreFactory stores(RedisScriptRunner runner, String keyPrefix, Duration decisionTimeout) {
		return (name, settings, ticker) -> new RedisRateLimitStore(name, settings, runner, keyPrefix, decisionTimeout);
	}

	/**
	 * A local Redis Cluster of three masters, each on a free port, with no replicas.
	 */
	public static final class Cluster implements AutoCloseable {

		private static Cluster shared;

		private final List<RedisServer> masters;

		private Cluster(List<RedisServer> masters) {
			this.masters = masters;
		}

		/**
		 * Returns the cluster shared by the tests of this JVM, started on first use.
		 * @return the cluster
		 */
		public static synchronized Cluster shared() {
			if (shared == null) {
				List<RedisServer> masters = new ArrayList<>();
				List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
				for (int i = 0; i < 3; i++) {
					RedisServer master = start(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
							"--cluster-node-timeout", "5000"));
					masters.add(master);
					create.add("127.0.0.1:" + master.port());
				}
				create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
				run(create);
				Cluster cluster = new Cluster(masters);
				cluster.awaitOk();
				shared = cluster;
				Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
			}
			return shared;
		}

		private void awaitOk() {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
			while (System.nanoTime() < deadline) {
				if (this.masters.stream().allMatch((master) -> master.cli("CLUSTER", "INFO").contains("cluster_state:ok"))) {
					return;
				}
				StoreContractTests.sleep(50);
			}
			throw new IllegalStateException("the cluster did not reach cluster_state:ok");
		}

		/**
		 * Returns the masters.
		 * @return the masters
		 */
		public List<RedisServer> masters() {
			return this.masters;
		}

		/**
		 * Opens a Lettuce cluster connection, as Spring Data Redis would.
		 * @return the connection's asynchronous commands
		 */
		public RedisClusterAsyncCommands<byte[], byte[]> connect() {
			RedisClusterClient client = RedisClusterClient.create(this.masters.get(0).uri());
			return client.connect(ByteArrayCodec.INSTANCE).async();
		}

		/**
		 * Returns a script runner connected to the cluster.
		 * @return the runner
		 */
		public RedisScriptRunner runner() {
			return warm(new RedisScriptRunner(this::connect));
		}

		@Override
		public void close() {
			this.masters.forEach(RedisServer::close);
		}

	}

}
