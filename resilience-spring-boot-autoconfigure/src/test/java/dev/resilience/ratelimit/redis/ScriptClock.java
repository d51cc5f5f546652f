package dev.resilience.ratelimit.redis;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import dev.resilience.Ticker;

/**
 * Runs the scripts on a test's clock instead of the server's: a test cannot move {@code TIME}, so
 * each script is sent by {@code EVAL} with its {@code TIME} call replaced by the clock's reading,
 * passed as one more argument after the script's own (no script reads past its own). Everything
 * else goes to the connection as it is. The store still dates its deadlines by the local clock:
 * give it a decision timeout longer than the test moves the clock at once.
 */
final class ScriptClock {

	private static final String TIME = "redis.call('TIME')";

	/** The clock's reading in microseconds, as the last argument: {@code TIME}'s seconds and microseconds. */
	private static final String READING = "{ '0', ARGV[#ARGV] }";

	private ScriptClock() {
	}

	/**
	 * A script runner whose scripts read the clock.
	 * @param connector opens the connection to the server or the cluster
	 * @param clock the clock, in nanoseconds (microseconds reach the scripts)
	 * @return the runner, connected
	 */
	static RedisScriptRunner runner(Supplier<RedisClusterAsyncCommands<byte[], byte[]>> connector, Ticker clock) {
		return RedisServer.warm(new RedisScriptRunner(() -> onClock(connector.get(), clock)));
	}

	@SuppressWarnings("unchecked")
	private static RedisClusterAsyncCommands<byte[], byte[]> onClock(RedisClusterAsyncCommands<byte[], byte[]> commands,
			Ticker clock) {
		// the runner tells a cluster from one server by the interface
		Class<?> type = (commands instanceof RedisAdvancedClusterAsyncCommands) ? RedisAdvancedClusterAsyncCommands.class
				: RedisAsyncCommands.class;
		Map<String, byte[]> scripts = new ConcurrentHashMap<>();
		return (RedisClusterAsyncCommands<byte[], byte[]>) Proxy.newProxyInstance(ScriptClock.class.getClassLoader(),
				new Class<?>[] { type }, (proxy, method, arguments) -> {
					String name = method.getName();
					if (name.equals("scriptLoad") && arguments[0] instanceof byte[] text) {
						scripts.put(sha1(text), onClock(text));
					}
					byte[] clocked = null;
					if (name.equals("eval") && arguments[0] instanceof byte[] text) {
						clocked = onClock(text);
					}
					else if (name.equals("evalsha")) {
						clocked = scripts.get((String) arguments[0]);
					}
					if (clocked != null) {
						byte[][] values = (byte[][]) arguments[3];
						byte[][] timed = Arrays.copyOf(values, values.length + 1);
						timed[values.length] = Long.toString(clock.read() / 1000).getBytes(StandardCharsets.US_ASCII);
						return commands.eval(clocked, (ScriptOutputType) arguments[1], (byte[][]) arguments[2], timed);
					}
					try {
						return method.invoke(commands, arguments);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

	private static byte[] onClock(byte[] script) {
		String text = new String(script, StandardCharsets.UTF_8);
		if (!text.contains(TIME)) {
			throw new IllegalStateException("a script that does not read TIME");
		}
		return text.replace(TIME, READING).getBytes(StandardCharsets.UTF_8);
	}

	private static String sha1(byte[] text) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
