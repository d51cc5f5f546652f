package dev.resilience.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.TokenBucketSettings;
import dev.resilience.ratelimit.WindowAlgorithm;
import dev.resilience.ratelimit.WindowSettings;

/**
 * Encodes the arguments of {@code rate_limiter.lua} (its header lists them) and decodes its reply.
 * Times and durations go in whole microseconds, rounded up: the script counts in microseconds of
 * the server's clock, exact as long as every number stays below 2^53, which
 * {@link #ScriptArguments(String, RateLimiterSettings)} checks for the products the token bucket's
 * arithmetic forms (the counter windows' estimate is a floating-point approximation anyway).
 */
final class ScriptArguments {

	/** The largest integer a Lua number (a double) holds exactly. */
	static final long EXACT = 1L << 53;

	static final int CALL_ARGUMENTS = 12;

	private static final byte[] ZERO = bytes(0);

	/** ARGV[13..]: the limiter's settings, the same for every call. */
	private final byte[][] settings;

	ScriptArguments(String limiterName, RateLimiterSettings settings) {
		String prefix = "resilience.rate-limiters." + limiterName + ".";
		TokenBucketSettings bucket = settings.tokenBucket();
		List<WindowSettings> windows = settings.windows();
		byte[][] encoded = new byte[8 + 2 * windows.size()][];
		if (bucket != null) {
			long period = micros(bucket.refillPeriod());
			if (exceeds(bucket.capacity() + bucket.refillTokens(), period, bucket.refillTokens())) {
				throw new IllegalArgumentException(prefix + "token-bucket: (capacity + refill-tokens) x refill-period in "
						+ "microseconds must stay below 2^53 for the Redis store");
			}
			encoded[0] = bytes(bucket.capacity());
			encoded[1] = bytes(bucket.refillTokens());
			encoded[2] = bytes(period);
			encoded[3] = bytes((bucket.refillStrategy() == RefillStrategy.INTERVAL) ? 1 : 0);
		}
		else {
			encoded[0] = ZERO;
			encoded[1] = ZERO;
			encoded[2] = ZERO;
			encoded[3] = ZERO;
		}
		encoded[4] = bytes((settings.windowAlgorithm() == WindowAlgorithm.COUNTER) ? 1 : 0);
		encoded[5] = bytes(settings.maxConcurrent());
		encoded[6] = bytes(micros(settings.leaseTimeout()));
		encoded[7] = bytes(windows.size());
		for (int i = 0; i < windows.size(); i++) {
			WindowSettings window = windows.get(i);
			encoded[8 + 2 * i] = bytes(window.limit());
			encoded[9 + 2 * i] = bytes(micros(window.period()));
		}
		this.settings = encoded;
	}

	/** Whether {@code a * b + c} reaches 2^53. */
	static boolean exceeds(long a, long b, long c) {
		return Math.multiplyHigh(a, b) != 0 || a * b < 0 || a * b >= EXACT - c;
	}

	/** A duration in whole microseconds, rounded up, saturating far beyond any setting. */
	static long micros(Duration duration) {
		long seconds = duration.getSeconds();
		if (seconds >= EXACT / 1_000_000) {
			return EXACT;
		}
		return seconds * 1_000_000 + (duration.getNano() + 999) / 1000;
	}

	/** Nanoseconds in whole microseconds, rounded up. */
	static long micros(long nanos) {
		return (nanos >= EXACT * 1000) ? EXACT : (nanos + 999) / 1000;
	}

	byte[][] decide(boolean commit, long cost, long maxWaitMicros, long deadlineMicros) {
		byte[][] arguments = withSettings();
		arguments[0] = bytes(commit ? "d" : "i");
		arguments[1] = bytes(cost);
		arguments[2] = bytes(maxWaitMicros);
		arguments[3] = bytes(deadlineMicros);
		return arguments;
	}

	byte[][] giveBack(Reply taken, long cost) {
		byte[][] arguments = withSettings();
		arguments[0] = bytes("g");
		arguments[1] = bytes(cost);
		arguments[4] = bytes(taken.sequence());
		arguments[5] = bytes(taken.at());
		arguments[6] = bytes(taken.bucketVersion() + 1);
		arguments[7] = bytes(taken.afterTokens());
		arguments[8] = bytes(taken.afterUpdated());
		arguments[9] = bytes(taken.beforeTokens());
		arguments[10] = bytes(taken.beforeUpdated());
		arguments[11] = bytes(taken.bucketVersion());
		return arguments;
	}

	byte[][] release(long sequence) {
		byte[][] arguments = withSettings();
		arguments[0] = bytes("r");
		arguments[4] = bytes(sequence);
		return arguments;
	}

	byte[][] reset() {
		byte[][] arguments = withSettings();
		arguments[0] = bytes("x");
		return arguments;
	}

	private byte[][] withSettings() {
		byte[][] arguments = new byte[CALL_ARGUMENTS + this.settings.length][];
		Arrays.fill(arguments, 0, CALL_ARGUMENTS, ZERO);
		System.arraycopy(this.settings, 0, arguments, CALL_ARGUMENTS, this.settings.length);
		return arguments;
	}

	static byte[] bytes(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * The script's reply to a decision, times in microseconds of the server's clock.
	 *
	 * @param status 1 admitted, 0 rejected, -1 too late (the caller gave up before the script ran)
	 * @param now the server's time when the script ran
	 * @param waitMicros how long an admitted call waits
	 * @param retryAfterMicros how long a rejected call should wait
	 * @param concurrencyLimited whether only a concurrency permit was missing
	 * @param inFlight the calls in flight for the key
	 * @param sequence the admitted call's sequence number (names its window entries and lease)
	 * @param bucketVersion the bucket's version before the call
	 * @param beforeTokens the bucket's tokens before the call
	 * @param beforeUpdated the bucket's time before the call
	 * @param afterTokens the bucket's tokens after the call
	 * @param afterUpdated the bucket's time after the call
	 * @param quotas remaining and microseconds until more, for the bucket and then each window
	 */
	record Reply(int status, long now, long waitMicros, long retryAfterMicros, boolean concurrencyLimited, int inFlight,
			long sequence, long bucketVersion, long beforeTokens, long beforeUpdated, long afterTokens, long afterUpdated,
			long[] quotas) {

		static final int HEAD = 12;

		static Reply parse(List<?> reply) {
			long[] quotas = new long[Math.max(0, reply.size() - HEAD)];
			for (int i = 0; i < quotas.length; i++) {
				quotas[i] = number(reply, HEAD + i);
			}
			return new Reply((int) number(reply, 0), number(reply, 1), number(reply, 2), number(reply, 3),
					number(reply, 4) == 1, (int) number(reply, 5), number(reply, 6), number(reply, 7), number(reply, 8),
					number(reply, 9), number(reply, 10), number(reply, 11), quotas);
		}

		/** The time the call was admitted at. */
		long at() {
			return this.now + this.waitMicros;
		}

		private static long number(List<?> reply, int index) {
			return (index < reply.size()) ? ((Number) reply.get(index)).longValue() : 0;
		}

	}

}
