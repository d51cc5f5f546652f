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
import dev.resilience.ratelimit.redis.RedisScriptRunner.Script;

/**
 * Encodes the arguments of the scripts ({@code decide.lua}, {@code decide_bucket.lua} or
 * {@code decide_window.lua}, {@code give_back.lua}, {@code release.lua}) and decodes a decision's reply: the slots are named here once, by the enums
 * {@link Setting}, {@link DecideInput}, {@link GiveBackInput}, {@link ReleaseInput} and
 * {@link ReplyField}, in the order the scripts read them ({@code helpers.lua} and the top of each
 * script name them on the Lua side). Every script's arguments start with the limiter's settings,
 * the same for every call, and go on with the call's own inputs.
 * <p>
 * Times and durations go in whole microseconds, rounded up: the scripts count in microseconds of
 * the server's clock, exact as long as every number stays below 2^53, which
 * {@link #ScriptArguments(String, RateLimiterSettings)} checks for the products the token bucket's
 * arithmetic forms (the counter windows' estimate is a floating-point approximation anyway).
 */
final class ScriptArguments {

	/** The largest integer a Lua number (a double) holds exactly. */
	static final long EXACT = 1L << 53;

	/**
	 * The commonest arguments (a cost of one, no wait, flags), shared by every call rather than
	 * formatted for each: Lettuce only reads them.
	 */
	private static final byte[] ZERO = { '0' };

	private static final byte[] ONE = { '1' };

	/**
	 * The limiter's settings, first in every script's arguments; then, per window, its limit and
	 * its period.
	 */
	enum Setting {

		/** The token bucket's capacity, 0 without a bucket. */
		CAPACITY,
		/** Tokens added per refill period. */
		REFILL_TOKENS,
		/** Microseconds. */
		REFILL_PERIOD,
		/** 1: whole periods at once, 0: greedily. */
		INTERVAL,
		/** 1: windows as counters, 0: exact logs. */
		COUNTER,
		/** 0 without concurrency permits. */
		MAX_CONCURRENT,
		/** Microseconds. */
		LEASE_TIMEOUT,
		/** How many windows follow, each as its limit and its period in microseconds. */
		WINDOW_COUNT

	}

	/** The inputs of {@code decide.lua}, after the settings. */
	enum DecideInput {

		/** The tokens (or window units) the call takes. */
		COST,
		/** Microseconds the call may wait for its slot. */
		MAX_WAIT,
		/** The server time after which the caller has given up, 0 for none. */
		DEADLINE,
		/** 1: decide, 0: inspect (take nothing). */
		COMMIT

	}

	/** The inputs of {@code give_back.lua}, after the settings: the call and its bucket before and after. */
	enum GiveBackInput {

		/** What the call took. */
		COST,
		/** The call's sequence number. */
		SEQUENCE,
		/** The server time the call was admitted at. */
		AT,
		/** The bucket's version, tokens and time the call left. */
		VERSION_AFTER, TOKENS_AFTER, UPDATED_AFTER,
		/** The bucket's tokens, time and version before the call. */
		TOKENS_BEFORE, UPDATED_BEFORE, VERSION_BEFORE

	}

	/** The inputs of {@code release.lua}, after the settings. */
	enum ReleaseInput {

		/** The call's sequence number, which names its lease. */
		SEQUENCE

	}

	/**
	 * The fields of {@code decide.lua}'s reply, in order; the quotas follow, two numbers per
	 * constraint. A reply of a decision that came too late holds only the first two.
	 */
	enum ReplyField {

		STATUS, NOW, WAIT, RETRY_AFTER, CONCURRENCY_LIMITED, IN_FLIGHT, SEQUENCE, BUCKET_VERSION, BEFORE_TOKENS,
		BEFORE_UPDATED, AFTER_TOKENS, AFTER_UPDATED

	}

	/** The limiter's settings, the same for every call: {@link Setting}, then the windows. */
	private final byte[][] settings;

	/** The script that decides for this limiter's shape. */
	private final Script decide;

	ScriptArguments(String limiterName, RateLimiterSettings settings) {
		String prefix = "resilience.rate-limiters." + limiterName + ".";
		TokenBucketSettings bucket = settings.tokenBucket();
		List<WindowSettings> windows = settings.windows();
		int fixed = Setting.values().length;
		byte[][] encoded = new byte[fixed + 2 * windows.size()][];
		Arrays.fill(encoded, ZERO);
		if (bucket != null) {
			long period = micros(bucket.refillPeriod());
			if (exceeds(bucket.capacity() + bucket.refillTokens(), period, bucket.refillTokens())) {
				throw new IllegalArgumentException(prefix + "token-bucket: (capacity + refill-tokens) x refill-period in "
						+ "microseconds must stay below 2^53 for the Redis store");
			}
			encoded[Setting.CAPACITY.ordinal()] = bytes(bucket.capacity());
			encoded[Setting.REFILL_TOKENS.ordinal()] = bytes(bucket.refillTokens());
			encoded[Setting.REFILL_PERIOD.ordinal()] = bytes(period);
			encoded[Setting.INTERVAL.ordinal()] = flag(bucket.refillStrategy() == RefillStrategy.INTERVAL);
		}
		encoded[Setting.COUNTER.ordinal()] = flag(settings.windowAlgorithm() == WindowAlgorithm.COUNTER);
		encoded[Setting.MAX_CONCURRENT.ordinal()] = bytes(settings.maxConcurrent());
		encoded[Setting.LEASE_TIMEOUT.ordinal()] = bytes(micros(settings.leaseTimeout()));
		encoded[Setting.WINDOW_COUNT.ordinal()] = bytes(windows.size());
		for (int i = 0; i < windows.size(); i++) {
			WindowSettings window = windows.get(i);
			encoded[fixed + 2 * i] = bytes(window.limit());
			encoded[fixed + 2 * i + 1] = bytes(micros(window.period()));
		}
		this.settings = encoded;
		this.decide = decideScript(bucket != null, !windows.isEmpty(), settings.windowAlgorithm(),
				settings.maxConcurrent() > 0);
	}

	/**
	 * The shortest script that decides for a limiter of this shape: {@code decide.lua} decides for
	 * every shape, the two others each for one common shape, in fewer steps.
	 */
	private static Script decideScript(boolean bucket, boolean windows, WindowAlgorithm algorithm,
			boolean concurrency) {
		if (concurrency) {
			return Script.DECIDE;
		}
		if (!windows) {
			return bucket ? Script.DECIDE_BUCKET : Script.DECIDE;
		}
		return (algorithm == WindowAlgorithm.LOG) ? Script.DECIDE_WINDOW : Script.DECIDE;
	}

	/**
	 * The script that decides (and inspects) for this limiter: a shorter one for a token bucket
	 * alone, and for exact windows without concurrency permits.
	 */
	Script decideScript() {
		return this.decide;
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
		byte[][] arguments = withSettings(DecideInput.values().length);
		set(arguments, DecideInput.COST, bytes(cost));
		set(arguments, DecideInput.MAX_WAIT, bytes(maxWaitMicros));
		set(arguments, DecideInput.DEADLINE, bytes(deadlineMicros));
		set(arguments, DecideInput.COMMIT, flag(commit));
		return arguments;
	}

	byte[][] giveBack(Reply taken, long cost) {
		byte[][] arguments = withSettings(GiveBackInput.values().length);
		set(arguments, GiveBackInput.COST, bytes(cost));
		set(arguments, GiveBackInput.SEQUENCE, bytes(taken.sequence()));
		set(arguments, GiveBackInput.AT, bytes(taken.at()));
		set(arguments, GiveBackInput.VERSION_AFTER, bytes(taken.bucketVersion() + 1));
		set(arguments, GiveBackInput.TOKENS_AFTER, bytes(taken.afterTokens()));
		set(arguments, GiveBackInput.UPDATED_AFTER, bytes(taken.afterUpdated()));
		set(arguments, GiveBackInput.TOKENS_BEFORE, bytes(taken.beforeTokens()));
		set(arguments, GiveBackInput.UPDATED_BEFORE, bytes(taken.beforeUpdated()));
		set(arguments, GiveBackInput.VERSION_BEFORE, bytes(taken.bucketVersion()));
		return arguments;
	}

	byte[][] release(long sequence) {
		byte[][] arguments = withSettings(ReleaseInput.values().length);
		set(arguments, ReleaseInput.SEQUENCE, bytes(sequence));
		return arguments;
	}

	private byte[][] withSettings(int inputs) {
		byte[][] arguments = new byte[this.settings.length + inputs][];
		System.arraycopy(this.settings, 0, arguments, 0, this.settings.length);
		return arguments;
	}

	/** Sets a call's input, which follows the settings. */
	private void set(byte[][] arguments, Enum<?> input, byte[] value) {
		arguments[this.settings.length + input.ordinal()] = value;
	}

	private static byte[] flag(boolean value) {
		return value ? ONE : ZERO;
	}

	static byte[] bytes(long value) {
		if (value == 0) {
			return ZERO;
		}
		if (value == 1) {
			return ONE;
		}
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * {@code decide.lua}'s reply, its fields as {@link ReplyField} orders them, times in
	 * microseconds of the server's clock.
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

		static Reply parse(List<?> reply) {
			int head = ReplyField.values().length;
			long[] quotas = new long[Math.max(0, reply.size() - head)];
			for (int i = 0; i < quotas.length; i++) {
				quotas[i] = number(reply, head + i);
			}
			return new Reply((int) number(reply, ReplyField.STATUS), number(reply, ReplyField.NOW),
					number(reply, ReplyField.WAIT), number(reply, ReplyField.RETRY_AFTER),
					number(reply, ReplyField.CONCURRENCY_LIMITED) == 1, (int) number(reply, ReplyField.IN_FLIGHT),
					number(reply, ReplyField.SEQUENCE), number(reply, ReplyField.BUCKET_VERSION),
					number(reply, ReplyField.BEFORE_TOKENS), number(reply, ReplyField.BEFORE_UPDATED),
					number(reply, ReplyField.AFTER_TOKENS), number(reply, ReplyField.AFTER_UPDATED), quotas);
		}

		/** The time the call was admitted at. */
		long at() {
			return this.now + this.waitMicros;
		}

		private static long number(List<?> reply, ReplyField field) {
			return number(reply, field.ordinal());
		}

		private static long number(List<?> reply, int index) {
			return (index < reply.size()) ? ((Number) reply.get(index)).longValue() : 0;
		}

	}

}
