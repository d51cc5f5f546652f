package dev.resilience.ratelimit.redis;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
 * {@code decide_window.lua}, {@code give_back.lua}, {@code release.lua}, {@code pause.lua}) and
 * decodes a decision's reply: the slots are named here once, by the enums {@link Setting},
 * {@link DecideInput}, {@link GiveBackInput}, {@link ReplyField} and {@link PausedReplyField}
 * ({@link #release(long, long, boolean)} sends three numbers, {@link #pause(long, long)} two), in
 * the order the scripts read them ({@code helpers.lua} and the top of each
 * script name them on the Lua side). A script takes two arguments: the limiter's settings, the same
 * for every call, and the call's own inputs, each as little-endian doubles (Lua's
 * {@code struct.pack('<d')}), exact for integers below 2^53: Redis makes each argument a Lua string
 * that a script would parse again, so one string unpacked in one step costs the server less than
 * a number per argument (see {@code helpers.lua}). Only {@code release.lua}'s inputs, the lease's
 * member, its score and a flag, and {@code pause.lua}'s two (a pause is rare) stay decimal, and so
 * do the windows' periods in milliseconds that
 * {@code decide_window.lua} takes after the two: it passes them to {@code PEXPIRE} as they are.
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
	 * The limiter's settings, the first argument of every script; then, per window, its limit and
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

	/** The inputs of {@code decide.lua}, its second argument. */
	enum DecideInput {

		/** The tokens (or window units) the call takes. */
		COST,
		/** Microseconds the call may wait for its slot. */
		MAX_WAIT,
		/** The server time after which the caller has given up, 0 for none. */
		DEADLINE,
		/** 1: decide, 0: inspect (take nothing). */
		COMMIT,
		/**
		 * 1: the limiter pauses on throttle, and the last key is the key's pause, read before
		 * anything else; 0: there is no such key, and no pause is read.
		 */
		PAUSE,
		/**
		 * Microseconds a permit of the limiter is typically held, as this instance last learned it
		 * from a return, 0 unknown: the Retry-After of a key whose state, and its own typical hold,
		 * was deleted once back to new.
		 */
		KNOWN_HOLD

	}

	/** The inputs of {@code give_back.lua}, its second argument: the call and its bucket before and after. */
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

	/**
	 * The fields of {@code decide.lua}'s reply, in order; the quotas follow, two numbers per
	 * constraint. A reply of a decision that came too late holds only the first two; one of a
	 * paused key, {@link PausedReplyField}'s.
	 */
	enum ReplyField {

		STATUS, NOW, WAIT, RETRY_AFTER, CONCURRENCY_LIMITED, IN_FLIGHT, SEQUENCE, BUCKET_VERSION, BEFORE_TOKENS,
		BEFORE_UPDATED, AFTER_TOKENS, AFTER_UPDATED

	}

	/**
	 * The fields of a decide script's reply for a paused key (status {@link Reply#PAUSED}), in
	 * order: the script read the pause, and nothing else.
	 */
	enum PausedReplyField {

		STATUS, NOW,
		/** Microseconds until the pause ends. */
		REST,
		/** The pause's length in microseconds, which the callers' resumptions are spread over. */
		LENGTH

	}

	/**
	 * The longest pause the scripts keep: a century, as good as for good. Its end on the server's
	 * clock (now about 1.7e15 microseconds) then stays an integer below 2^53, exact in a Lua number,
	 * whatever {@code max-pause} allows.
	 */
	static final long MAX_PAUSE_MICROS = 100L * 365 * 24 * 3600 * 1_000_000;

	/** {@code release.lua}'s flag: the hold time is learned from the return, or not. */
	private static final byte[] ONE = { '1' };

	private static final byte[] ZERO = { '0' };

	/** The limiter's settings, the same for every call: {@link Setting}, then the windows, packed. */
	private final byte[] settings;

	/** The script that decides for this limiter's shape. */
	private final Script decide;

	/** Whether the limiter pauses on throttle: its decisions read the key's pause. */
	private final boolean pauses;

	/**
	 * The arguments {@code decide_window.lua} takes after the settings and the inputs: each
	 * window's period in whole milliseconds, rounded up, in decimal (none for the other scripts).
	 */
	private final byte[][] windowExpiries;

	ScriptArguments(String limiterName, RateLimiterSettings settings) {
		String prefix = "resilience.rate-limiters." + limiterName + ".";
		TokenBucketSettings bucket = settings.tokenBucket();
		List<WindowSettings> windows = settings.windows();
		int fixed = Setting.values().length;
		long[] encoded = new long[fixed + 2 * windows.size()];
		if (bucket != null) {
			long period = micros(bucket.refillPeriod());
			if (exceeds(bucket.capacity() + bucket.refillTokens(), period, bucket.refillTokens())) {
				throw new IllegalArgumentException(prefix + "token-bucket: (capacity + refill-tokens) x refill-period in "
						+ "microseconds must stay below 2^53 for the Redis store");
			}
			encoded[Setting.CAPACITY.ordinal()] = bucket.capacity();
			encoded[Setting.REFILL_TOKENS.ordinal()] = bucket.refillTokens();
			encoded[Setting.REFILL_PERIOD.ordinal()] = period;
			encoded[Setting.INTERVAL.ordinal()] = flag(bucket.refillStrategy() == RefillStrategy.INTERVAL);
		}
		encoded[Setting.COUNTER.ordinal()] = flag(settings.windowAlgorithm() == WindowAlgorithm.COUNTER);
		encoded[Setting.MAX_CONCURRENT.ordinal()] = settings.maxConcurrent();
		encoded[Setting.LEASE_TIMEOUT.ordinal()] = micros(settings.leaseTimeout());
		encoded[Setting.WINDOW_COUNT.ordinal()] = windows.size();
		for (int i = 0; i < windows.size(); i++) {
			WindowSettings window = windows.get(i);
			encoded[fixed + 2 * i] = window.limit();
			encoded[fixed + 2 * i + 1] = micros(window.period());
		}
		this.settings = doubles(encoded);
		this.decide = decideScript(bucket != null, !windows.isEmpty(), settings.windowAlgorithm(),
				settings.maxConcurrent() > 0);
		this.pauses = settings.pauseOnThrottle().enabled();
		this.windowExpiries = new byte[(this.decide == Script.DECIDE_WINDOW) ? windows.size() : 0][];
		for (int i = 0; i < this.windowExpiries.length; i++) {
			long millis = (encoded[fixed + 2 * i + 1] + 999) / 1000;
			this.windowExpiries[i] = Long.toString(millis).getBytes(StandardCharsets.US_ASCII);
		}
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

	/**
	 * Whether the limiter's decisions read the key's pause: they take its key last
	 * ({@link RedisKeys#keys(String, boolean)}), and {@link DecideInput#PAUSE} says so to the script.
	 * A limiter that does not pause is spared reading it.
	 */
	boolean pauses() {
		return this.pauses;
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

	byte[][] decide(boolean commit, long cost, long maxWaitMicros, long deadlineMicros, long knownHoldMicros) {
		long[] inputs = new long[DecideInput.values().length];
		inputs[DecideInput.COST.ordinal()] = cost;
		inputs[DecideInput.MAX_WAIT.ordinal()] = maxWaitMicros;
		inputs[DecideInput.DEADLINE.ordinal()] = deadlineMicros;
		inputs[DecideInput.COMMIT.ordinal()] = flag(commit);
		inputs[DecideInput.PAUSE.ordinal()] = flag(this.pauses);
		inputs[DecideInput.KNOWN_HOLD.ordinal()] = knownHoldMicros;
		byte[][] arguments = new byte[2 + this.windowExpiries.length][];
		arguments[0] = this.settings;
		arguments[1] = doubles(inputs);
		System.arraycopy(this.windowExpiries, 0, arguments, 2, this.windowExpiries.length);
		return arguments;
	}

	byte[][] giveBack(Reply taken, long cost) {
		long[] inputs = new long[GiveBackInput.values().length];
		inputs[GiveBackInput.COST.ordinal()] = cost;
		inputs[GiveBackInput.SEQUENCE.ordinal()] = taken.sequence();
		inputs[GiveBackInput.AT.ordinal()] = taken.at();
		inputs[GiveBackInput.VERSION_AFTER.ordinal()] = taken.bucketVersion() + 1;
		inputs[GiveBackInput.TOKENS_AFTER.ordinal()] = taken.afterTokens();
		inputs[GiveBackInput.UPDATED_AFTER.ordinal()] = taken.afterUpdated();
		inputs[GiveBackInput.TOKENS_BEFORE.ordinal()] = taken.beforeTokens();
		inputs[GiveBackInput.UPDATED_BEFORE.ordinal()] = taken.beforeUpdated();
		inputs[GiveBackInput.VERSION_BEFORE.ordinal()] = taken.bucketVersion();
		return new byte[][] { this.settings, doubles(inputs) };
	}

	/**
	 * The arguments of {@code release.lua}: the settings, then the call's sequence number in
	 * decimal, which names its lease as the script uses it, without formatting it, the time the
	 * call was admitted at (its lease's score), whether the hold time is learned from it
	 * ({@code 1}) or not ({@code 0}: a return sent late), and the limiter's typical hold in
	 * microseconds as this instance knows it (0 unknown), where the key's state has none. Its reply
	 * is {@code 1} and the key's typical hold after the return (0 unknown).
	 */
	byte[][] release(long sequence, long at, boolean learned, long knownHoldMicros) {
		return new byte[][] { this.settings, Long.toString(sequence).getBytes(StandardCharsets.US_ASCII),
				Long.toString(at).getBytes(StandardCharsets.US_ASCII), learned ? ONE : ZERO,
				Long.toString(knownHoldMicros).getBytes(StandardCharsets.US_ASCII) };
	}

	/**
	 * The arguments of {@code pause.lua}, in decimal: the pause in whole microseconds, rounded up,
	 * at most {@link #MAX_PAUSE_MICROS}, and the server time after which the caller has given up, 0
	 * for none.
	 */
	static byte[][] pause(long nanos, long deadlineMicros) {
		return new byte[][] { Long.toString(Math.min(micros(nanos), MAX_PAUSE_MICROS)).getBytes(StandardCharsets.US_ASCII),
				Long.toString(deadlineMicros).getBytes(StandardCharsets.US_ASCII) };
	}

	private static long flag(boolean value) {
		return value ? 1 : 0;
	}

	/** Numbers as the scripts unpack them: little-endian doubles, exact below 2^53. */
	static byte[] doubles(long... values) {
		ByteBuffer buffer = ByteBuffer.allocate(Double.BYTES * values.length).order(ByteOrder.LITTLE_ENDIAN);
		for (long value : values) {
			buffer.putDouble(value);
		}
		return buffer.array();
	}

	/**
	 * {@code decide.lua}'s reply, its fields as {@link ReplyField} orders them, times in
	 * microseconds of the server's clock.
	 *
	 * @param status 1 admitted, 0 rejected, {@link #PAUSED} rejected for the key's pause, -1 too late
	 * (the caller gave up before the script ran)
	 * @param now the server's time when the script ran
	 * @param waitMicros how long an admitted call waits
	 * @param retryAfterMicros how long a rejected call should wait; for a paused key, the rest of the
	 * pause
	 * @param concurrencyLimited whether only a concurrency permit was missing
	 * @param inFlight the calls in flight for the key
	 * @param sequence the admitted call's sequence number (names its window entries and lease)
	 * @param bucketVersion the bucket's version before the call
	 * @param beforeTokens the bucket's tokens before the call
	 * @param beforeUpdated the bucket's time before the call
	 * @param afterTokens the bucket's tokens after the call
	 * @param afterUpdated the bucket's time after the call
	 * @param pauseLengthMicros for a paused key, the length of the pause in force; else 0
	 * @param quotas remaining and microseconds until more, for the bucket and then each window
	 */
	record Reply(int status, long now, long waitMicros, long retryAfterMicros, boolean concurrencyLimited, int inFlight,
			long sequence, long bucketVersion, long beforeTokens, long beforeUpdated, long afterTokens, long afterUpdated,
			long pauseLengthMicros, long[] quotas) {

		/** The status of a decision the key's pause rejected, taking nothing. */
		static final int PAUSED = 2;

		/**
		 * Decodes a decision's reply: one string of little-endian doubles (Lua's
		 * {@code struct.pack('<d')}), which Lettuce hands over as a list of that one value.
		 * @param reply the script's reply
		 * @return its fields
		 */
		static Reply parse(List<?> reply) {
			ByteBuffer packed = ByteBuffer.wrap((byte[]) reply.get(0)).order(ByteOrder.LITTLE_ENDIAN);
			long[] numbers = new long[Math.max(packed.remaining() / Double.BYTES, ReplyField.values().length)];
			for (int i = 0; packed.hasRemaining(); i++) {
				numbers[i] = (long) packed.getDouble();
			}
			int head = ReplyField.values().length;
			if (field(numbers, ReplyField.STATUS) == PAUSED) {
				return new Reply(PAUSED, numbers[PausedReplyField.NOW.ordinal()], 0,
						numbers[PausedReplyField.REST.ordinal()], false, 0, 0, 0, 0, 0, 0, 0,
						numbers[PausedReplyField.LENGTH.ordinal()], new long[0]);
			}
			return new Reply((int) field(numbers, ReplyField.STATUS), field(numbers, ReplyField.NOW),
					field(numbers, ReplyField.WAIT), field(numbers, ReplyField.RETRY_AFTER),
					field(numbers, ReplyField.CONCURRENCY_LIMITED) == 1, (int) field(numbers, ReplyField.IN_FLIGHT),
					field(numbers, ReplyField.SEQUENCE), field(numbers, ReplyField.BUCKET_VERSION),
					field(numbers, ReplyField.BEFORE_TOKENS), field(numbers, ReplyField.BEFORE_UPDATED),
					field(numbers, ReplyField.AFTER_TOKENS), field(numbers, ReplyField.AFTER_UPDATED), 0,
					Arrays.copyOfRange(numbers, head, numbers.length));
		}

		/** The time the call was admitted at. */
		long at() {
			return this.now + this.waitMicros;
		}

		private static long field(long[] numbers, ReplyField field) {
			return numbers[field.ordinal()];
		}

	}

}
