package dev.resilience.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntPredicate;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import dev.resilience.ratelimit.redis.RedisServer;

/**
 * Counts what one decision costs Redis, for each of {@link RedisContenders#ALL}, one fresh server
 * each, one thread, 100 keys: the commands the client sends (counted by Lettuce as they complete);
 * from the server's {@code INFO commandstats} (reset before the measured decisions), the script
 * calls ({@code EVALSHA} and {@code EVAL}) and the server's time in every command
 * ({@code usec}, summed: what the server spends per decision, which caps a hot key); and the memory
 * of one key after its first decision, measured first with a limit of 1 a second ({@code MEMORY USAGE ... SAMPLES 0} summed over the Redis keys
 * the implementation wrote, divided by the keys). Writes
 * {@code impl,decisions,clientCommands,scriptCalls,serverMicros,memoryBytesPerKey} lines.
 * <pre class="code">
 * java -cp ... dev.resilience.benchmarks.RedisCommandCount 10000 target/results/redis-commands.csv
 * </pre>
 */
public final class RedisCommandCount {

	/** The rate of the limiters whose memory is measured: a key is back to new a second later. */
	private static final long MEMORY_RATE = 1;

	private RedisCommandCount() {
	}

	public static void main(String[] args) {
		int decisions = Integer.parseInt(args[0]);
		StringBuilder csv = new StringBuilder("impl,decisions,clientCommands,scriptCalls,serverMicros,memoryBytesPerKey\n");
		for (String impl : RedisContenders.ALL) {
			LongAdder sent = new LongAdder();
			ClientResources resources = DefaultClientResources.builder().commandLatencyRecorder(new Counting(sent)).build();
			try (RedisServer redis = RedisServer.start()) {
				RedisClient client = RedisContenders.client(redis, resources);
				String[] keys = RedisContenders.keys(100);
				// Memory first, at one call a second: the unlimited limiter is back to new at once,
				// and our store deletes a key as soon as it is.
				IntPredicate slow = RedisContenders.create(impl, client, keys, MEMORY_RATE);
				for (int i = 0; i < keys.length; i++) {
					slow.test(i);
				}
				long memory = memory(redis, RedisContenders.pattern(impl));
				redis.commands().flushall();
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
					.append(scriptCalls).append(',').append(serverMicros(redis)).append(',')
					.append(memory / keys.length).append('\n');
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

	/** The server's time in every command since the last reset, but the reset and the reading. */
	static long serverMicros(RedisServer redis) {
		long micros = 0;
		for (String line : redis.commands().info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")
					&& !line.startsWith("cmdstat_config:")) {
				int start = line.indexOf("usec=") + "usec=".length();
				micros += Long.parseLong(line.substring(start, line.indexOf(',', start)));
			}
		}
		return micros;
	}

	/** {@code MEMORY USAGE key SAMPLES 0} (every element counted) summed over the keys of a pattern. */
	static long memory(RedisServer redis, String pattern) {
		RedisCommands<String, String> commands = redis.commands();
		long bytes = 0;
		for (String key : redis.keys(pattern)) {
			Long usage = commands.dispatch(CommandType.MEMORY, new IntegerOutput<>(StringCodec.UTF8),
					new CommandArgs<>(StringCodec.UTF8).add("USAGE").addKey(key).add("SAMPLES").add(0));
			bytes += (usage != null) ? usage : 0;
		}
		return bytes;
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
