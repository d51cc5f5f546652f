package dev.resilience.benchmarks;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} from the {@code PATH}, started on a free loopback port without
 * persistence, for the Redis benchmarks.
 */
final class LocalRedis implements AutoCloseable {

	private final Process process;

	private final int port;

	private LocalRedis(Process process, int port) {
		this.process = process;
		this.port = port;
	}

	static LocalRedis start() {
		try {
			int port;
			try (ServerSocket socket = new ServerSocket(0)) {
				port = socket.getLocalPort();
			}
			Process process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
					"--save", "", "--appendonly", "no")
				.redirectOutput(new File("/dev/null"))
				.redirectErrorStream(true)
				.start();
			LocalRedis redis = new LocalRedis(process, port);
			redis.awaitPing();
			return redis;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("The Redis benchmarks need redis-server on the PATH", ex);
		}
	}

	private void awaitPing() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			try (Socket socket = new Socket("127.0.0.1", this.port)) {
				socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
				if (socket.getInputStream().read() == '+') {
					return;
				}
			}
			catch (IOException ex) {
				// not listening yet
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		throw new IllegalStateException("redis-server did not start on port " + this.port);
	}

	int port() {
		return this.port;
	}

	/** Runs {@code redis-cli} against this server and returns what it printed. */
	String cli(String... arguments) {
		List<String> command = new java.util.ArrayList<>(List.of("redis-cli", "-p", Integer.toString(this.port)));
		command.addAll(List.of(arguments));
		try {
			Process cli = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			cli.waitFor();
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

	/** The calls of one command since the statistics were reset, from {@code INFO commandstats}. */
	long commandCalls(String name) {
		String prefix = "cmdstat_" + name + ":calls=";
		for (String line : cli("INFO", "commandstats").split("\r?\n")) {
			if (line.startsWith(prefix)) {
				return Long.parseLong(line.substring(prefix.length(), line.indexOf(',')));
			}
		}
		return 0;
	}

	@Override
	public void close() {
		this.process.destroyForcibly();
	}

}
