package dev.resilience.ratelimit.redis;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.WindowAlgorithm;
import dev.resilience.ratelimit.redis.RedisScriptRunner.Script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ScriptArgumentsTests {

	@Test
	void settingsFollowTheCallArgumentsInTheScriptsOrder() {
		ScriptArguments arguments = new ScriptArguments("n", RateLimiterSettings.builder()
			.tokenBucket(50, 5, Duration.ofSeconds(1), RefillStrategy.INTERVAL)
			.window(25, Duration.ofSeconds(5))
			.window(300, Duration.ofMillis(60_000))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.maxConcurrent(10, Duration.ofMinutes(1))
			.build());
		assertThat(strings(arguments.decide(true, 3, 250_000, 42, 700))).containsExactly("50", "5", "1000000", "1", "1",
				"10", "60000000", "2", "25", "5000000", "300", "60000000", "3", "250000", "42", "1", "0", "700");
	}

	@Test
	void noBucketAndExactWindowsAreZeroes() {
		ScriptArguments arguments = new ScriptArguments("n",
				RateLimiterSettings.builder().window(7, Duration.ofMillis(1500)).build());
		// then the window's period in milliseconds, in decimal, for decide_window.lua's PEXPIRE
		assertThat(strings(arguments.decide(false, 1, 0, 0, 0))).containsExactly("0", "0", "0", "0", "0", "0", "60000000",
				"1", "7", "1500000", "1", "0", "0", "0", "0", "0", "1500");
	}

	@Test
	void aTokenBucketAloneDecidesByTheShorterScript() {
		RateLimiterSettings.Builder bucket = RateLimiterSettings.builder()
			.tokenBucket(5, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY);
		assertThat(new ScriptArguments("n", bucket.build()).decideScript()).isEqualTo(Script.DECIDE_BUCKET);
		assertThat(new ScriptArguments("n", bucket.maxConcurrent(2, Duration.ofMinutes(1)).build()).decideScript())
			.isEqualTo(Script.DECIDE);
	}

	@Test
	void exactWindowsWithoutConcurrencyPermitsDecideByTheirOwnScript() {
		RateLimiterSettings.Builder windowed = RateLimiterSettings.builder()
			.tokenBucket(5, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(7, Duration.ofSeconds(1))
			.window(9, Duration.ofSeconds(2));
		assertThat(new ScriptArguments("n", windowed.build()).decideScript()).isEqualTo(Script.DECIDE_WINDOW);
		assertThat(new ScriptArguments("n", RateLimiterSettings.builder().window(7, Duration.ofSeconds(1)).build())
			.decideScript()).isEqualTo(Script.DECIDE_WINDOW);
		assertThat(new ScriptArguments("n", windowed.windowAlgorithm(WindowAlgorithm.COUNTER).build()).decideScript())
			.isEqualTo(Script.DECIDE);
		assertThat(new ScriptArguments("n", windowed.windowAlgorithm(WindowAlgorithm.LOG)
			.maxConcurrent(2, Duration.ofMinutes(1))
			.build()).decideScript()).isEqualTo(Script.DECIDE);
	}

	@Test
	void giveBackCarriesTheTicket() {
		ScriptArguments arguments = new ScriptArguments("n",
				RateLimiterSettings.builder().tokenBucket(5, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY).build());
		ScriptArguments.Reply taken = new ScriptArguments.Reply(1, 1000, 20, 0, false, 0, 9, 4, 5, 900, 3, 1010, 0,
				new long[0]);
		assertThat(strings(arguments.giveBack(taken, 2))).containsExactly("5", "1", "1000000", "0", "0", "0", "60000000",
				"0", "2", "9", "1020", "5", "3", "1010", "5", "900", "4");
		assertThat(strings(arguments.release(9, taken.at(), true, 0))).containsExactly("5", "1", "1000000", "0", "0",
				"0", "60000000", "0", "9", "1020", "1", "0");
		assertThat(strings(arguments.release(9, taken.at(), false, 4_500))).endsWith("9", "1020", "0", "4500");
	}

	@Test
	void decisionsOfALimiterThatPausesSayTheyTakeThePauseKey() {
		RateLimiterSettings.Builder settings = RateLimiterSettings.builder().window(7, Duration.ofSeconds(1));
		assertThat(new ScriptArguments("n", settings.build()).pauses()).isFalse();
		ScriptArguments pausing = new ScriptArguments("n", settings
			.pauseOnThrottle(new PauseOnThrottleSettings(true, Set.of(429), Duration.ofSeconds(1), Duration.ofMinutes(1), 0.1))
			.build());
		assertThat(pausing.pauses()).isTrue();
		assertThat(strings(pausing.decide(true, 1, 0, 0, 0))).containsExactly("0", "0", "0", "0", "0", "0", "60000000",
				"1", "7", "1000000", "1", "0", "0", "1", "1", "0", "1000");
	}

	@Test
	void pauseIsSentInWholeMicrosecondsRoundedUpAtMostACenturyWithItsDeadline() {
		assertThat(decimals(ScriptArguments.pause(1, 0))).containsExactly("1", "0");
		assertThat(decimals(ScriptArguments.pause(2_500_000_001L, 1_764_000_000_123_457L))).containsExactly("2500001",
				"1764000000123457");
		assertThat(decimals(ScriptArguments.pause(Long.MAX_VALUE, 0))).containsExactly("3153600000000000", "0");
		assertThat(ScriptArguments.MAX_PAUSE_MICROS).isEqualTo(Duration.ofDays(36_500).toNanos() / 1000);
	}

	@Test
	void replyOfAPausedKeyHoldsTheRestOfThePauseAndItsLength() {
		ScriptArguments.Reply paused = ScriptArguments.Reply.parse(packed(2, 100, 7_000, 9_000));
		assertThat(paused.status()).isEqualTo(ScriptArguments.Reply.PAUSED);
		assertThat(paused.now()).isEqualTo(100);
		assertThat(paused.retryAfterMicros()).isEqualTo(7_000);
		assertThat(paused.pauseLengthMicros()).isEqualTo(9_000);
		assertThat(paused.waitMicros()).isZero();
		assertThat(paused.quotas()).isEmpty();
		assertThat(ScriptArguments.Reply.parse(packed(1, 100, 7, 3, 1, 2, 11, 4, 5, 90, 4, 95, 8, 9)).pauseLengthMicros())
			.isZero();
	}

	@Test
	void durationsRoundUpToWholeMicroseconds() {
		assertThat(ScriptArguments.micros(Duration.ofNanos(1))).isEqualTo(1);
		assertThat(ScriptArguments.micros(Duration.ofNanos(1000))).isEqualTo(1);
		assertThat(ScriptArguments.micros(Duration.ofNanos(1001))).isEqualTo(2);
		assertThat(ScriptArguments.micros(Duration.ofSeconds(3, 999))).isEqualTo(3_000_001);
		assertThat(ScriptArguments.micros(Duration.ZERO)).isZero();
		assertThat(ScriptArguments.micros(Duration.ofDays(365L * 1000 * 1000))).isEqualTo(ScriptArguments.EXACT);
		assertThat(ScriptArguments.micros(0L)).isZero();
		assertThat(ScriptArguments.micros(1L)).isEqualTo(1);
		assertThat(ScriptArguments.micros(2000L)).isEqualTo(2);
		assertThat(ScriptArguments.micros(2001L)).isEqualTo(3);
		assertThat(ScriptArguments.micros(Long.MAX_VALUE)).isEqualTo(ScriptArguments.EXACT);
		long limitSeconds = ScriptArguments.EXACT / 1_000_000;
		assertThat(ScriptArguments.micros(Duration.ofSeconds(limitSeconds))).isEqualTo(ScriptArguments.EXACT);
		assertThat(ScriptArguments.micros(Duration.ofSeconds(limitSeconds - 1))).isEqualTo((limitSeconds - 1) * 1_000_000);
		assertThat(ScriptArguments.micros(ScriptArguments.EXACT * 1000)).isEqualTo(ScriptArguments.EXACT);
		assertThat(ScriptArguments.micros(ScriptArguments.EXACT * 1000 - 1000)).isEqualTo(ScriptArguments.EXACT - 1);
	}

	@Test
	void productsTheScriptFormsMustStayExact() {
		long exact = ScriptArguments.EXACT;
		assertThat(ScriptArguments.exceeds(1, exact - 1, 0)).isFalse();
		assertThat(ScriptArguments.exceeds(0, 5, 0)).isFalse();
		assertThat(ScriptArguments.exceeds(1, exact, 0)).isTrue();
		assertThat(ScriptArguments.exceeds(1, exact - 1, 1)).isTrue();
		assertThat(ScriptArguments.exceeds(2, exact / 2 - 1, 1)).isFalse();
		assertThat(ScriptArguments.exceeds(1L << 32, 1L << 32, 0)).isTrue();
		assertThat(ScriptArguments.exceeds(Long.MAX_VALUE, 2, 0)).isTrue();
		assertThat(ScriptArguments.exceeds(1L << 62, 2, 0)).isTrue();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ScriptArguments("big", RateLimiterSettings.builder()
				.tokenBucket(1_000_000_000, 1, Duration.ofDays(365), RefillStrategy.GREEDY)
				.build()))
			.withMessageStartingWith("resilience.rate-limiters.big.token-bucket:");
		new ScriptArguments("fits", RateLimiterSettings.builder()
			.tokenBucket(1_000_000, 1_000, Duration.ofHours(1), RefillStrategy.GREEDY)
			.window(1_000_000, Duration.ofHours(24))
			.build());
	}

	@Test
	void onlyTheExactWindowsScriptTakesEachPeriodInWholeMillisecondsRoundedUp() {
		RateLimiterSettings.Builder windows = RateLimiterSettings.builder()
			.window(7, Duration.ofMillis(1500))
			.window(9, Duration.ofNanos(2_000_000_001));
		byte[][] exact = new ScriptArguments("n", windows.build()).decide(true, 1, 0, 0, 0);
		assertThat(Arrays.stream(exact, 2, exact.length).map((argument) -> new String(argument, StandardCharsets.US_ASCII)))
			.containsExactly("1500", "2001");
		// decide.lua works its expiries out itself
		assertThat(new ScriptArguments("n", windows.maxConcurrent(2, Duration.ofMinutes(1)).build())
			.decide(true, 1, 0, 0, 0).length).isEqualTo(2);
		assertThat(new ScriptArguments("n", windows.maxConcurrent(0, Duration.ofMinutes(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build()).decide(true, 1, 0, 0, 0).length).isEqualTo(2);
	}

	@Test
	void replyIsParsedByPosition() {
		ScriptArguments.Reply reply = ScriptArguments.Reply
			.parse(packed(1, 100, 7, 3, 1, 2, 11, 4, 5, 90, 4, 95, 8, 9));
		assertThat(reply).satisfies((parsed) -> {
			assertThat(parsed.status()).isEqualTo(1);
			assertThat(parsed.now()).isEqualTo(100);
			assertThat(parsed.waitMicros()).isEqualTo(7);
			assertThat(parsed.retryAfterMicros()).isEqualTo(3);
			assertThat(parsed.concurrencyLimited()).isTrue();
			assertThat(parsed.inFlight()).isEqualTo(2);
			assertThat(parsed.sequence()).isEqualTo(11);
			assertThat(parsed.bucketVersion()).isEqualTo(4);
			assertThat(parsed.beforeTokens()).isEqualTo(5);
			assertThat(parsed.beforeUpdated()).isEqualTo(90);
			assertThat(parsed.afterTokens()).isEqualTo(4);
			assertThat(parsed.afterUpdated()).isEqualTo(95);
			assertThat(parsed.quotas()).containsExactly(8, 9);
			assertThat(parsed.at()).isEqualTo(107);
		});
		ScriptArguments.Reply late = ScriptArguments.Reply.parse(packed(-1, 100));
		assertThat(late.status()).isEqualTo(-1);
		assertThat(late.concurrencyLimited()).isFalse();
		assertThat(late.quotas()).isEmpty();
	}

	@Test
	void eachScriptTakesTheSettingsAndTheCallsInputsAsTwoArgumentsExactBelow2To53() {
		ScriptArguments arguments = new ScriptArguments("n",
				RateLimiterSettings.builder().tokenBucket(5, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY).build());
		byte[][] decide = arguments.decide(true, 1, ScriptArguments.EXACT - 1, 1_764_000_000_123_457L, 250_000);
		assertThat(decide.length).isEqualTo(2);
		// eight settings, six inputs, eight bytes each
		assertThat(decide[0]).hasSize(64);
		assertThat(decide[1]).hasSize(48);
		assertThat(strings(decide)).endsWith("1", "9007199254740991", "1764000000123457", "1", "0", "250000");
		byte[][] release = arguments.release(12_345_678, 1_764_000_000_123_457L, true, 0);
		assertThat(release[1]).isEqualTo("12345678".getBytes(StandardCharsets.US_ASCII));
		assertThat(release[2]).isEqualTo("1764000000123457".getBytes(StandardCharsets.US_ASCII));
	}

	/** A reply as the scripts pack it, and as Lettuce hands it over: a list of one string of doubles. */
	private static List<?> packed(long... numbers) {
		ByteBuffer packed = ByteBuffer.allocate(Double.BYTES * numbers.length).order(ByteOrder.LITTLE_ENDIAN);
		for (long number : numbers) {
			packed.putDouble(number);
		}
		return List.of(packed.array());
	}

	/** Arguments that are all decimal, as the scripts read them. */
	private static List<String> decimals(byte[][] arguments) {
		return Arrays.stream(arguments).map((argument) -> new String(argument, StandardCharsets.US_ASCII)).toList();
	}

	/** The arguments as the scripts read them: the packed numbers in decimal, a decimal one as it is. */
	private static List<String> strings(byte[][] arguments) {
		List<String> values = new ArrayList<>();
		for (byte[] argument : arguments) {
			if (argument.length % Double.BYTES != 0) {
				values.add(new String(argument, StandardCharsets.US_ASCII));
				continue;
			}
			ByteBuffer packed = ByteBuffer.wrap(argument).order(ByteOrder.LITTLE_ENDIAN);
			while (packed.hasRemaining()) {
				double value = packed.getDouble();
				assertThat(value).as("a whole number").isEqualTo(Math.rint(value));
				values.add(Long.toString((long) value));
			}
		}
		return values;
	}

}
