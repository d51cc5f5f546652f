package dev.resilience.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntPredicate;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Counts the instructions a decision costs the Redis server, for each of
 * {@link RedisContenders#ALL}: a {@code redis-server} from the {@code PATH} runs under Valgrind's
 * callgrind, which counts only inside {@code processCommand} (every command a client sends,
 * with what a script calls), one thread asks for 100 keys in turn, the counters are zeroed after as
 * many decisions to warm up, and the count of the measured decisions is divided by their number.
 * <p>
 * Why beside {@link RedisCommandCount}'s microseconds: the server's time per call moves by a
 * tenth or more from one run to the next on a shared machine, more than most changes to a
 * script. The instructions of a token bucket's decision are the same in every run to a few
 * tenths of a percent; with windows they move by a few percent, as how many entries a window
 * holds and how many leave at each call depend on how fast the decisions run (under Valgrind,
 * tens of times slower: the windows hold fewer entries than in {@link RedisCommandCount}'s run).
 * They are not time (a cache miss costs more than an addition), so the report gives both.
 * Writes {@code impl,decisions,instructionsPerDecision} lines.
 */
public final class RedisInstructionCount {

	/** How long a server under Valgrind (tens of times slower) may take to answer. */
	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	private RedisInstructionCount() {
	}

	public static void main(String[] args) throws Exception {
		int decisions = Integer.parseInt(args[0]);
		StringBuilder csv = new StringBuilder("impl,decisions,instructionsPerDecision\n");
		String[] keys = RedisContenders.keys(100);
		for (String impl : RedisContenders.ALL) {
			csv.append(impl).append(',').append(decisions).append(',')
				.append(count(impl, (client) -> RedisContenders.create(impl, client, keys), keys.length, decisions))
				.append('\n');
		}
		Files.writeString(Path.of(args[1]), csv);
		System.out.print(csv);
	}

	/**
	 * The instructions per decision of one limiter, on a server of its own under callgrind.
	 * @param impl names the limiter in messages and the callgrind file
	 * @param create makes the limiter on a client of the server: a test of key number {@code i}
	 * @param keys how many keys the decisions ask for in turn
	 * @param decisions the decisions to warm up, then as many counted
	 */
	static long count(String impl, Function<RedisClient, IntPredicate> create, int keys, int decisions)
			throws Exception {
		Path out = Files.createTempFile("callgrind-" + impl + "-", ".out");
		int port = freePort();
		Process server = new ProcessBuilder("valgrind", "--tool=callgrind", "--toggle-collect=processCommand",
				"--callgrind-out-file=" + out, "redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		RedisClient adminClient = RedisClient.create(RedisURI.create("127.0.0.1", port));
		try {
			StatefulRedisConnection<String, String> admin = connect(adminClient, server);
			RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
			IntPredicate limiter = create.apply(client);
			for (int i = 0; i < decisions; i++) {
				limiter.test(i % keys);
			}
			zero(server);
			for (int i = 0; i < decisions; i++) {
				limiter.test(i % keys);
			}
			// the contender's connections first, or they would try to reconnect to the stopped server
			client.shutdown();
			// Stopping the server makes callgrind write its counts.
			admin.sync().shutdown(false);
			if (!server.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
				throw new IllegalStateException("redis-server under valgrind did not stop for " + impl);
			}
			return instructions(Files.readAllLines(out)) / decisions;
		}
		finally {
			adminClient.shutdown();
			server.destroyForcibly();
			Files.deleteIfExists(out);
		}
	}

	private static StatefulRedisConnection<String, String> connect(RedisClient client, Process server)
			throws InterruptedException {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (true) {
			try {
				StatefulRedisConnection<String, String> connection = client.connect();
				connection.sync().ping();
				return connection;
			}
			catch (RuntimeException ex) {
				if (!server.isAlive() || System.nanoTime() - deadline > 0) {
					throw new IllegalStateException("redis-server under valgrind did not answer (is valgrind installed, "
							+ "and redis-server on the PATH?)", ex);
				}
				Thread.sleep(200);
			}
		}
	}

	/** Zeroes callgrind's counters: what came before (warming up, loading scripts) is not counted. */
	private static void zero(Process server) throws IOException, InterruptedException {
		Process zero = new ProcessBuilder("callgrind_control", "--zero", String.valueOf(server.pid()))
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		if (!zero.waitFor(30, TimeUnit.SECONDS) || zero.exitValue() != 0) {
			throw new IllegalStateException("callgrind_control --zero failed for process " + server.pid());
		}
	}

	/** The instructions callgrind counted: its {@code summary:} (or {@code totals:}) line. */
	static long instructions(List<String> callgrindOutput) {
		for (String line : callgrindOutput) {
			if (line.startsWith("summary:") || line.startsWith("totals:")) {
				return Long.parseLong(line.substring(line.indexOf(':') + 1).trim().split("\\s+")[0]);
			}
		}
		throw new IllegalArgumentException("callgrind wrote no summary line");
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
