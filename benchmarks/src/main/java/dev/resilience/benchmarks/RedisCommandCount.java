package dev.resilience.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntPredicate;

import io.lettuce.core.RedisClient;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import dev.resilience.ratelimit.redis.RedisServer;

/**
 * Counts the Redis commands one decision costs, for ours and for Bucket4j's Lettuce backend: the
 * commands the client sends (counted by Lettuce as they complete) and, from the server's
 * {@code INFO commandstats}, the script calls ({@code EVALSHA} and {@code EVAL}). Writes
 * {@code impl,decisions,clientCommands,scriptCalls} lines.
 * <pre class="code">
 * java -cp ... dev.resilience.benchmarks.RedisCommandCount 10000 target/results/redis-commands.csv
 * </pre>
 */
public final class RedisCommandCount {

	private RedisCommandCount() {
	}

	public static void main(String[] args) {
		int decisions = Integer.parseInt(args[0]);
		StringBuilder csv = new StringBuilder("impl,decisions,clientCommands,scriptCalls\n");
		for (String impl : new String[] { "ours", "bucket4j" }) {
			LongAdder sent = new LongAdder();
			ClientResources resources = DefaultClientResources.builder().commandLatencyRecorder(new Counting(sent)).build();
			try (RedisServer redis = RedisServer.start()) {
				RedisClient client = RedisContenders.client(redis, resources);
				String[] keys = RedisContenders.keys(100);
				IntPredicate limiter = RedisContenders.create(impl, client, keys);
				// Warm up: connect, load scripts, create the keys.
				for (int i = 0; i < keys.length; i++) {
					limiter.test(i);
				}
				redis.commands().configResetstat();
				sent.reset();
				for (int i = 0; i < decisions; i++) {
					limiter.test(i % keys.length);
				}
				long scriptCalls = redis.commandCalls("evalsha") + redis.commandCalls("eval");
				csv.append(impl).append(',').append(decisions).append(',').append(sent.sum()).append(',')
					.append(scriptCalls).append('\n');
				client.shutdown();
			}
			resources.shutdown();
		}
		try {
			Files.writeString(Path.of(args[1]), csv);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		System.out.print(csv);
	}

	/** Counts every command Lettuce completes. */
	private record Counting(LongAdder sent) implements CommandLatencyRecorder {

		@Override
		public void recordCommandLatency(SocketAddress local, SocketAddress remote, ProtocolKeyword commandType,
				long firstResponseLatency, long completionLatency) {
			this.sent.increment();
		}

	}

}
