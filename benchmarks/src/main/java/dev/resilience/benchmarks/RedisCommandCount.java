package dev.resilience.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * each, one thread, 100 keys, after as many decisions to warm up: the commands the client sends (counted by Lettuce as they complete);
 * from the server's {@code INFO commandstats} (reset before the measured decisions), the script
 * calls ({@code EVALSHA} and {@code EVAL}) and the server's time in the commands the client sent
 * (what the server spends per decision, which caps a hot key); and the memory
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
			Counting sent = new Counting(new ConcurrentHashMap<>());
			ClientResources resources = DefaultClientResources.builder().commandLatencyRecorder(sent).build();
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
				// Warm up: connect, load scripts, create the keys, and as many decisions as are measured,
				// so that the client's compiler does not take the server's cores while it is timed.
				for (int i = 0; i < decisions; i++) {
					limiter.test(i % keys.length);
				}
				redis.commands().configResetstat();
				sent.reset();
				for (int i = 0; i < decisions; i++) {
					limiter.test(i % keys.length);
				}
				long scriptCalls = redis.commandCalls("evalsha") + redis.commandCalls("eval");
				csv.append(impl).append(',').append(decisions).append(',').append(sent.sum()).append(',')
					.append(scriptCalls).append(',').append(serverMicros(redis, sent)).append(',')
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

	/**
	 * The server's time in the commands the client sent since the last reset. A script's own line
	 * holds the time of the commands it calls, which also have lines of their own: counting every
	 * line would count those twice. So a script counts by its line, and a command the client sent
	 * itself by its time per call, times the calls the client sent.
	 */
	static long serverMicros(RedisServer redis, Counting sent) {
		double micros = 0;
		for (String line : redis.commands().info("commandstats").split("\r?\n")) {
			if (!line.startsWith("cmdstat_")) {
				continue;
			}
			String command = line.substring("cmdstat_".length(), line.indexOf(':'));
			long usec = Long.parseLong(field(line, "usec="));
			if (command.equals("evalsha") || command.equals("eval")) {
				micros += usec;
			}
			else if (!command.equals("info") && !command.equals("config")) {
				micros += Double.parseDouble(field(line, "usec_per_call=")) * sent.count(command);
			}
		}
		return Math.round(micros);
	}

	private static String field(String line, String name) {
		int start = line.indexOf(name) + name.length();
		int end = line.indexOf(',', start);
		return line.substring(start, (end < 0) ? line.length() : end);
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

	/** Counts every command Lettuce completes, by its name. */
	record Counting(Map<String, LongAdder> sent) implements CommandLatencyRecorder {

		@Override
		public void recordCommandLatency(SocketAddress local, SocketAddress remote, ProtocolKeyword commandType,
				long firstResponseLatency, long completionLatency) {
			this.sent.computeIfAbsent(commandType.toString().toLowerCase(Locale.ROOT), (name) -> new LongAdder())
				.increment();
		}

		long count(String command) {
			LongAdder count = this.sent.get(command);
			return (count != null) ? count.sum() : 0;
		}

		long sum() {
			return this.sent.values().stream().mapToLong(LongAdder::sum).sum();
		}

		void reset() {
			this.sent.clear();
		}

	}

}
