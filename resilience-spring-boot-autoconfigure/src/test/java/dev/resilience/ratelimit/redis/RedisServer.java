package dev.resilience.ratelimit.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import redis.embedded.core.ExecutableProvider;

import dev.resilience.ratelimit.store.RateLimitStoreFactory;

/**
 * A {@code redis-server} started on a free loopback port for tests, with no persistence: the one on
 * the {@code PATH}, else the one {@code embedded-redis} ships for this OS and architecture. A
 * machine with neither fails the tests that need one, naming both options: the Redis tests are part
 * of the suite, never skipped. Tests talk to it with Lettuce only, so no {@code redis-cli} is
 * needed (embedded-redis ships none). Also used by the sample's Redis test and the Redis
 * benchmarks (the autoconfigure module's test-jar holds only this class).
 */
public final class RedisServer implements AutoCloseable {

	/**
	 * System property that makes every server use the embedded binary even when the {@code PATH}
	 * has a {@code redis-server}: {@code -Dresilience.test.redis=embedded} runs the Redis tests as a
	 * machine without Redis would.
	 */
	public static final String BINARY_PROPERTY = "resilience.test.redis";

	private static final String EXECUTABLE = "redis-server";

	private static RedisServer shared;

	private static String embedded;

	private final String executable;

	private final int port;

	private final List<String> extra;

	private final Path directory;

	private Process process;

	private final List<AbstractRedisClient> clients = new ArrayList<>();

	private RedisCommands<String, String> commands;

	private RedisServer(String executable, int port, Path directory, List<String> extra) {
		this.executable = executable;
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

	/**
	 * Starts a server of its own from the given binary, which the test stops.
	 * @param executable the {@code redis-server} binary
	 * @return the server
	 */
	public static RedisServer start(String executable) {
		return start(executable, List.of());
	}

	static RedisServer start(List<String> extra) {
		return start(executable(), extra);
	}

	private static RedisServer start(String executable, List<String> extra) {
		try {
			RedisServer server = new RedisServer(executable, freePort(), Files.createTempDirectory("redis"), extra);
			server.launch();
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Starts (or starts again, after {@link #kill()}) the process on the same port. */
	public void launch() {
		List<String> command = new ArrayList<>(List.of(this.executable, "--port", Integer.toString(this.port), "--bind",
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

	/**
	 * Returns the {@code redis-server} the tests run: the {@code PATH}'s, else the embedded one
	 * (always the embedded one with {@code -Dresilience.test.redis=embedded}).
	 * @return the binary's path
	 */
	public static String executable() {
		if (!"embedded".equals(System.getProperty(BINARY_PROPERTY))) {
			String path = System.getenv("PATH");
			for (String dir : (path != null) ? path.split(File.pathSeparator) : new String[0]) {
				File candidate = new File(dir, EXECUTABLE);
				if (candidate.canExecute()) {
					return candidate.getPath();
				}
			}
		}
		return embeddedExecutable();
	}

	/**
	 * Returns the {@code redis-server} embedded-redis ships for this OS and architecture, extracted
	 * (once per JVM) to an executable temporary file.
	 * @return the binary's path
	 */
	public static synchronized String embeddedExecutable() {
		if (embedded == null) {
			try {
				embedded = ExecutableProvider.newJarResourceProvider().get().getPath();
			}
			catch (IOException | RuntimeException ex) {
				throw new IllegalStateException("The Redis tests need a redis-server: none is on the PATH (Debian/Ubuntu: "
						+ "apt-get install redis-server; macOS: brew install redis; .ci/run installs it), and the test "
						+ "dependency com.github.codemonstur:embedded-redis ships none for " + System.getProperty("os.name")
						+ " " + System.getProperty("os.arch") + " (it has Linux x86_64/arm64/x86, macOS x86_64/arm64)", ex);
			}
		}
		return embedded;
	}

	/** Whether a new connection gets {@code PONG} to a {@code PING} within a second. */
	private boolean answersPingOnANewConnection() {
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			socket.setSoTimeout(1000);
			socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			byte[] reply = new byte[7];
			return socket.getInputStream().read(reply) > 0
					&& new String(reply, StandardCharsets.US_ASCII).startsWith("+PONG");
		}
		catch (IOException ex) {
			return false; // not listening yet, or not answering
		}
	}

	private void awaitPing() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server exited: " + log());
			}
			if (answersPingOnANewConnection()) {
				return;
			}
			sleep(20);
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

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Returns commands on a connection of the test's own, for what a test asks the server (statistics,
	 * keys, scripts, cluster set-up); it reconnects after {@link #kill()} and {@link #launch()}.
	 * @return the synchronous commands
	 */
	public synchronized RedisCommands<String, String> commands() {
		if (this.commands == null) {
			RedisClient client = RedisClient.create(uri());
			this.clients.add(client);
			this.commands = client.connect().sync();
		}
		return this.commands;
	}

	/**
	 * Returns the keys that match a pattern, by {@code SCAN}.
	 * @param pattern the pattern, such as {@code prefix:*}
	 * @return the keys
	 */
	public List<String> keys(String pattern) {
		return ScanIterator.scan(commands(), ScanArgs.Builder.matches(pattern).limit(1000)).stream().toList();
	}

	/**
	 * Returns how often the server ran a command since its statistics were last reset
	 * ({@code CONFIG RESETSTAT}), from {@code INFO commandstats}.
	 * @param name the command, lower case
	 * @return the calls
	 */
	public long commandCalls(String name) {
		String prefix = "cmdstat_" + name + ":calls=";
		for (String line : commands().info("commandstats").split("\r?\n")) {
			if (line.startsWith(prefix)) {
				return Long.parseLong(line.substring(prefix.length(), line.indexOf(',')));
			}
		}
		return 0;
	}

	/**
	 * Returns how often the server replied with an error of a kind since its statistics were last
	 * reset, from {@code INFO errorstats}.
	 * @param code the error's code, such as {@code WRONGTYPE}
	 * @return the errors
	 */
	public long errorReplies(String code) {
		String prefix = "errorstat_" + code + ":count=";
		for (String line : commands().info("errorstats").split("\r?\n")) {
			if (line.startsWith(prefix)) {
				return Long.parseLong(line.substring(prefix.length()).trim());
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
		if (!runner.connect(Duration.ofSeconds(30))) {
			// Seen on the shared cluster when a node connection stalled: say where connecting stands.
			String connecting = connectingThreads();
			try {
				runner.ping(System.nanoTime());
			}
			catch (Exception ex) {
				throw new IllegalStateException("Redis did not answer; " + connecting, ex);
			}
			throw new IllegalStateException("Redis did not answer; " + connecting);
		}
		return runner;
	}

	/**
	 * The stacks of the runner's connecting threads, and of Lettuce's threads that are busy (not
	 * waiting for work), for a failure's message.
	 */
	private static String connectingThreads() {
		StringBuilder stacks = new StringBuilder("threads connecting, and Lettuce's busy threads:");
		Thread.getAllStackTraces().forEach((thread, frames) -> {
			String name = thread.getName();
			boolean lettuceBusy = name.startsWith("lettuce-") && thread.getState() == Thread.State.RUNNABLE
					&& frames.length > 0 && !frames[0].isNativeMethod();
			if (name.startsWith("resilience-redis-connect") || lettuceBusy) {
				stacks.append("\n\"").append(name).append("\" ").append(thread.getState());
				for (StackTraceElement frame : frames) {
					stacks.append("\n\tat ").append(frame);
				}
			}
		});
		return stacks.toString();
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
		return (name, settings, ticker) -> new RedisRateLimitStore(name, settings, runner, keyPrefix, decisionTimeout,
				List.of(), ticker);
	}

	/**
	 * A local Redis Cluster of three masters, each on a free port, with no replicas.
	 */
	public static final class Cluster implements AutoCloseable {

		private static final int SLOTS = 16384;

		/** How long each client may take to load the topology and connect: three fit in a runner's warm-up. */
		private static final Duration TOPOLOGY_LOAD_WAIT = Duration.ofSeconds(8);

		private static final int TOPOLOGY_LOAD_ATTEMPTS = 3;

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
				for (int i = 0; i < 3; i++) {
					masters.add(start(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
							"--cluster-node-timeout", "5000")));
				}
				Cluster cluster = new Cluster(masters);
				cluster.create();
				shared = cluster;
				Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
			}
			return shared;
		}

		/**
		 * What {@code redis-cli --cluster create --cluster-replicas 0} does, with commands: an
		 * even share of the 16384 slots per master (CLUSTER ADDSLOTS, which every version has),
		 * a config epoch each, then every master meets the first.
		 */
		private void create() {
			int count = this.masters.size();
			for (int i = 0; i < count; i++) {
				RedisCommands<String, String> master = this.masters.get(i).commands();
				int from = i * SLOTS / count;
				int to = (i + 1) * SLOTS / count;
				master.clusterAddSlots(IntStream.range(from, to).toArray());
				master.clusterSetConfigEpoch(i + 1);
			}
			for (RedisServer master : this.masters.subList(1, count)) {
				master.commands().clusterMeet("127.0.0.1", this.masters.get(0).port());
			}
			awaitOk();
		}

		/**
		 * Waits until every master says {@code cluster_state:ok}. A test that froze a master of the
		 * shared cluster calls it after thawing: the thawed master finds its peers silent for as
		 * long as it was stopped, and refuses commands ({@code CLUSTERDOWN}) for its rejoin delay,
		 * up to the node timeout, which would fail the next test that uses the cluster.
		 */
		public void awaitOk() {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
			while (System.nanoTime() < deadline) {
				if (this.masters.stream().allMatch(Cluster::ready)) {
					return;
				}
				sleep(50);
			}
			throw new IllegalStateException("the cluster did not reach cluster_state:ok with 3 known nodes");
		}

		/**
		 * Whether a master serves the whole cluster: its state ok, all three nodes known and none
		 * flagged failing ({@code fail?} or {@code fail}), and a new connection answered. A runner
		 * created just after a thaw once waited 60 s (Lettuce's timeout) for its new connection to
		 * the thawed master, whose {@code cluster_state} was already ok.
		 */
		private static boolean ready(RedisServer master) {
			String info = master.commands().clusterInfo();
			return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:3")
					&& !master.commands().clusterNodes().contains("fail") && master.answersPingOnANewConnection();
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
			return open().async();
		}

		/**
		 * Opens a Lettuce cluster connection for a test's own commands, its connection to each
		 * master open before it is returned. A node connection that Lettuce opens at a first command
		 * writes that command from inside the completion of its handshake, where Lettuce 7.5.2 was
		 * seen to stall (a 60 s command timeout); the runner opens its nodes the same way.
		 * @return the connection's asynchronous commands
		 */
		public RedisClusterAsyncCommands<byte[], byte[]> connectToEveryMaster() {
			StatefulRedisClusterConnection<byte[], byte[]> connection = open();
			for (RedisServer master : this.masters) {
				connection.getConnection("127.0.0.1", master.port());
			}
			return connection.async();
		}

		/**
		 * Opens a connection through a new client, giving each client {@link #TOPOLOGY_LOAD_WAIT} for its
		 * first topology load and its connection. Lettuce's blocking {@code connect} waits for that load
		 * without a limit, and a new client's load was seen to stall for good, in about one build in
		 * four, at the same point of the test order in two builds at once (Lettuce logged "Ignoring
		 * received data for closed or abandoned connection", every master answered,
		 * {@code cluster_state:ok}); a fresh client then connects at once.
		 */
		private StatefulRedisClusterConnection<byte[], byte[]> open() {
			List<Exception> stalls = new ArrayList<>();
			for (int attempt = 0; attempt < TOPOLOGY_LOAD_ATTEMPTS; attempt++) {
				RedisClusterClient client = RedisClusterClient.create(this.masters.get(0).uri());
				try {
					client.refreshPartitionsAsync().toCompletableFuture().get(TOPOLOGY_LOAD_WAIT.toMillis(),
							TimeUnit.MILLISECONDS);
					return client.connectAsync(ByteArrayCodec.INSTANCE).get(TOPOLOGY_LOAD_WAIT.toMillis(),
							TimeUnit.MILLISECONDS);
				}
				catch (TimeoutException | ExecutionException ex) {
					stalls.add(ex);
					client.shutdownAsync();
					// in the test output, so that a run shows whether the stall came back
					System.err.println("A new cluster client did not connect within " + TOPOLOGY_LOAD_WAIT
							+ " (" + ex + "); trying a fresh one");
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					client.shutdownAsync();
					throw new IllegalStateException("interrupted while opening a cluster connection", ex);
				}
			}
			IllegalStateException failure = new IllegalStateException("no cluster connection opened in "
					+ TOPOLOGY_LOAD_ATTEMPTS + " clients, each given " + TOPOLOGY_LOAD_WAIT + "; masters' states: "
					+ this.masters.stream().map(Cluster::state).toList());
			stalls.forEach(failure::addSuppressed);
			throw failure;
		}

		private static String state(RedisServer master) {
			try {
				String info = master.commands().clusterInfo();
				return master.port() + (info.contains("cluster_state:ok") ? " ok" : " not ok")
						+ (master.answersPingOnANewConnection() ? ", answers" : ", silent");
			}
			catch (RuntimeException ex) {
				return master.port() + " " + ex;
			}
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
