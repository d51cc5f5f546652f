package dev.resilience.ratelimit.redis;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitDecision.Quota;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreFailurePolicy;
import dev.resilience.ratelimit.WindowAlgorithm;
import dev.resilience.ratelimit.store.StoreContractTests;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.codec.ByteArrayCodec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/** What only the Redis store promises: one command per decision, expiring keys, late commands ignored. */
class RedisRateLimitStoreTests {

	private static final RedisServer server = RedisServer.shared();

	private static final RedisScriptRunner runner = server.runner();

	private final String prefix = "store-test-" + System.nanoTime() + ":";

	private RateLimiter limiter(String name, RateLimiterSettings.Builder settings) {
		return limiter(runner, Duration.ofSeconds(2), name, settings);
	}

	/** A limiter on the Redis store of a runner of its own (another server, a proxy). */
	private RateLimiter limiter(RedisScriptRunner ownRunner, Duration decisionTimeout, String name,
			RateLimiterSettings.Builder settings) {
		return StoreRateLimiterRegistry.builder()
			.store(RedisRateLimitStore.TYPE, RedisServer.stores(ownRunner, this.prefix, decisionTimeout))
			.limiter(name, settings.store(RedisRateLimitStore.TYPE).build())
			.build()
			.get(name);
	}

	@Test
	void everyDecisionIsOneScriptCallWhateverTheConstraints() {
		RateLimiter everything = limiter("everything", RateLimiterSettings.builder()
			.tokenBucket(1000, 1000, Duration.ofSeconds(1), RefillStrategy.INTERVAL)
			.window(1000, Duration.ofSeconds(10))
			.window(2000, Duration.ofMinutes(1))
			.maxConcurrent(50, Duration.ofMinutes(1)));
		RateLimiter counters = limiter("counters", RateLimiterSettings.builder()
			.window(1000, Duration.ofSeconds(10))
			.window(2000, Duration.ofMinutes(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER));
		counters.tryAcquire("warm", 1);
		server.commands().configResetstat();
		for (int i = 0; i < 40; i++) {
			counters.tryAcquire("k" + (i % 3), 1);
		}
		assertThat(server.commandCalls("evalsha")).isEqualTo(40);
		for (int i = 0; i < 30; i++) {
			Reservation reservation = everything.reserve("k" + (i % 3), 1, Duration.ZERO);
			assertThat(reservation.getDecision().isPermitted()).isTrue();
		}
		assertThat(server.commandCalls("evalsha")).isEqualTo(70);
		// returning the permit is one more command, and only for limiters with max-concurrent
		try (Permit permit = everything.acquire("k", 1, Duration.ZERO)) {
			assertThat(permit.getDecisions()).hasSize(1);
		}
		assertThat(server.commandCalls("evalsha")).isEqualTo(72);
		assertThat(server.commandCalls("eval")).isZero();
	}

	@Test
	void reservationIsGivenBackOnceHoweverOftenItIsCancelled() {
		RedisRateLimitStore store = new RedisRateLimitStore("once", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.tokenBucket(5, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.build(), runner, this.prefix, Duration.ofSeconds(2));
		Reservation reservation = store.reserve("k", 2, 0);
		assertThat(reservation.getDecision().isPermitted()).isTrue();
		server.commands().configResetstat();
		reservation.cancel();
		reservation.cancel();
		reservation.cancelAsync().join();
		assertThat(server.commandCalls("evalsha")).isOne();
		assertThat(store.inspect("k").getRemaining()).isEqualTo(5);
	}

	@Test
	void newSettingsApplyFromTheNextDecisionAndTheKeyKeepsItsState() {
		RedisRateLimitStore store = new RedisRateLimitStore("updated", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.tokenBucket(10, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.window(3, Duration.ofHours(1))
			.build(), runner, this.prefix, Duration.ofSeconds(2));
		for (int i = 0; i < 3; i++) {
			assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		}
		assertThat(store.tryAcquire("k", 1).isPermitted()).isFalse();
		assertThat(store.updateSettings(RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.tokenBucket(20, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.window(5, Duration.ofHours(1))
			.build())).isTrue();
		// the bucket keeps its tokens and the window its three entries, counted by the new settings
		assertThat(store.inspect("k").getQuotas()).extracting(Quota::quota, Quota::window, Quota::remaining)
			.containsExactly(tuple(20L, Duration.ofHours(20), 7L), tuple(5L, Duration.ofHours(1), 2L));
		assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(store.tryAcquire("k", 1).isPermitted()).isFalse();
	}

	@Test
	void callThatWaitsForItsSlotIsStillOneDecision() {
		RateLimiter limiter = limiter("waiting", RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofMillis(200), RefillStrategy.GREEDY)
			.maxWait(Duration.ofSeconds(1)));
		limiter.tryAcquire("warm", 1);
		server.commands().configResetstat();
		limiter.acquire("k", 1).close();
		try (Permit waited = limiter.acquire("k", 1)) {
			assertThat(waited.getWaited()).isPositive();
		}
		assertThat(server.commandCalls("evalsha")).isEqualTo(2);
	}

	@Test
	void callerWaitingForAReturnedPermitPollsAtMostEveryTenMilliseconds() throws InterruptedException {
		RateLimiter limiter = limiter("polled", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofHours(1)));
		Permit held = limiter.acquire("k", 1, Duration.ZERO);
		server.commands().configResetstat();
		long start = System.nanoTime();
		Thread returner = new Thread(() -> {
			StoreContractTests.sleep(300);
			held.close();
		});
		returner.start();
		limiter.acquire("k", 1, Duration.ofSeconds(10)).close();
		returner.join();
		long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		// one decision per poll, plus the permit returned twice and the admitting decision
		assertThat(server.commandCalls("evalsha"))
			.isLessThanOrEqualTo(elapsedMillis / RedisRateLimitStore.PERMIT_POLL_MILLIS + 4);
	}

	@Test
	void scriptIsLoadedAgainAfterTheServerForgotIt() {
		RateLimiter limiter = limiter("flushed", RateLimiterSettings.builder().window(3, Duration.ofHours(1)));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		server.commands().scriptFlush();
		server.commands().configResetstat();
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
		assertThat(server.commandCalls("eval")).isEqualTo(1);
		assertThat(server.commandCalls("evalsha")).isEqualTo(3);
		// decided by Redis each time, not by on-store-failure
		assertThat(limiter.getStoreErrors()).isZero();
	}

	@Test
	void everyKeyExpiresOnceItIsBackToANewKeysState() {
		RateLimiter limiter = limiter("expiring", RateLimiterSettings.builder()
			.tokenBucket(10, 10, Duration.ofSeconds(10), RefillStrategy.GREEDY)
			.window(5, Duration.ofSeconds(30))
			.maxConcurrent(3, Duration.ofSeconds(20)));
		// Refilled slowly enough that no key expires while a loaded machine reads 400 expiries.
		RateLimiter bucketOnly = limiter("bucket", RateLimiterSettings.builder()
			.tokenBucket(10, 1, Duration.ofSeconds(10), RefillStrategy.GREEDY));
		for (int i = 0; i < 100; i++) {
			limiter.acquire("user-" + i, 1, Duration.ZERO);
			bucketOnly.tryAcquire("user-" + i, 2);
		}
		List<String> keys = server.keys(this.prefix + "*");
		assertThat(keys).hasSize(100 * 3 + 100);
		for (String key : keys) {
			long ttl = server.commands().pttl(key);
			assertThat(ttl).as(key).isPositive();
			if (key.startsWith(this.prefix + "bucket:")) {
				// two tokens at one every ten seconds
				assertThat(ttl).as(key).isLessThanOrEqualTo(20_000);
			}
			else if (key.endsWith(":l")) {
				assertThat(ttl).as(key).isLessThanOrEqualTo(20_000);
			}
			else {
				assertThat(ttl).as(key).isLessThanOrEqualTo(30_000);
			}
		}
	}

	@Test
	void exactWindowWhoseEntriesExpiredBesideALongerLivedBucketAdmitsAgain() {
		// The window's set expires with its newest entry; the state, kept by the slow bucket, must
		// not go on counting the entries that went with it.
		RateLimiter limiter = limiter("outlived", RateLimiterSettings.builder()
			.tokenBucket(10, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.window(1, Duration.ofMillis(100)));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
		StoreContractTests.sleep(300);
		assertThat(server.keys(this.prefix + "outlived:*")).hasSize(1);
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
	}

	@Test
	void keyWhoseStateIsBackToNewIsDeleted() {
		RateLimiter limiter = limiter("returned", RateLimiterSettings.builder().maxConcurrent(2, Duration.ofMinutes(1)));
		limiter.acquire("k", 1, Duration.ZERO).close();
		assertThat(server.keys(this.prefix + "returned:*")).isEmpty();
	}

	@Test
	void decisionThatReachesTheServerAfterItsDeadlineChangesNothing() throws Exception {
		RateLimiterSettings settings = RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.tokenBucket(5, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.build();
		RedisKeys keys = new RedisKeys(this.prefix, "late", settings);
		ScriptArguments arguments = new ScriptArguments("late", settings);
		List<?> reply = runner.run(RedisScriptRunner.Script.DECIDE, keys.keys("k"), arguments.decide(true, 1, 0, 1, 0), TimeUnit.SECONDS.toNanos(5)).get();
		assertThat(ScriptArguments.Reply.parse(reply).status()).isEqualTo(-1);
		assertThat(server.keys(this.prefix + "late:*")).isEmpty();
	}

	@Test
	void tokenBucketAloneDecidesByItsOwnScriptExactlyAsTheGeneralOne() throws Exception {
		// One token an hour: nothing refills during the test, so both scripts see the same bucket
		// and differ only by the server's time, which each key's times are taken relative to.
		long hour = TimeUnit.HOURS.toMicros(1);
		// {cost, max wait, commit}: take 2, inspect, take 3, rejected, inspect empty, reserve two
		// hours ahead, rejected for waiting too little, inspect the reservation
		long[][] calls = { { 2, 0, 1 }, { 1, 0, 0 }, { 3, 0, 1 }, { 1, 0, 1 }, { 1, 0, 0 }, { 2, 3 * hour, 1 },
				{ 1, hour, 1 }, { 1, 0, 0 } };
		for (RefillStrategy strategy : RefillStrategy.values()) {
			RateLimiterSettings settings = RateLimiterSettings.builder()
				.store(RedisRateLimitStore.TYPE)
				.tokenBucket(5, 1, Duration.ofHours(1), strategy)
				.build();
			RedisKeys keys = new RedisKeys(this.prefix, "alone-" + strategy, settings);
			ScriptArguments arguments = new ScriptArguments("alone-" + strategy, settings);
			assertThat(arguments.decideScript()).isEqualTo(RedisScriptRunner.Script.DECIDE_BUCKET);
			List<List<Long>> general = decideInTurn(RedisScriptRunner.Script.DECIDE, keys.keys("general"), arguments,
					calls, 1, 2);
			List<List<Long>> own = decideInTurn(RedisScriptRunner.Script.DECIDE_BUCKET, keys.keys("own"), arguments,
					calls, 1, 2);
			assertThat(own).as(strategy.toString()).isEqualTo(general);
			// the reservation: admitted two hours after the first call, the bucket then empty again
			assertThat(general.get(5)).as(strategy.toString()).startsWith(1L, 0L, 2 * hour);
			assertThat(general.get(5).subList(10, 12)).as(strategy.toString()).containsExactly(0L, 2 * hour);
		}
	}

	@Test
	void exactWindowsDecideByTheirOwnScriptExactlyAsTheGeneralOne() throws Exception {
		// Windows of one and two hours: no entry leaves during the test, so both scripts see the
		// same windows and differ only by the server's time, which each key's times are taken
		// relative to, to the second (the calls follow each other within milliseconds, each run at
		// its own pace). {cost, max wait, commit}: take 2, inspect, take 1, rejected (the first
		// window is full), inspect it full, reserve the slot the first entry leaves an hour later,
		// reserve 2 for when the longer window frees them (two hours later), inspect the reservations
		long hour = TimeUnit.HOURS.toMicros(1);
		long second = TimeUnit.SECONDS.toMicros(1);
		long[][] calls = { { 2, 0, 1 }, { 1, 0, 0 }, { 1, 0, 1 }, { 1, 0, 1 }, { 1, 0, 0 }, { 1, 2 * hour, 1 },
				{ 2, 3 * hour, 1 }, { 1, 0, 0 } };
		RateLimiterSettings.Builder windows = RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.window(3, Duration.ofHours(1))
			.window(4, Duration.ofHours(2));
		// the state's slots holding times: the bucket's updated, if any, and each window's latest and oldest
		int[][] timeSlots = { { 4, 5, 8, 9 }, { 2, 7, 8, 11, 12 } };
		RateLimiterSettings[] shapes = { windows.build(),
				windows.tokenBucket(10, 1, Duration.ofHours(1), RefillStrategy.GREEDY).build() };
		for (int shape = 0; shape < shapes.length; shape++) {
			String name = "windows-" + shape;
			RedisKeys keys = new RedisKeys(this.prefix, name, shapes[shape]);
			ScriptArguments arguments = new ScriptArguments(name, shapes[shape]);
			assertThat(arguments.decideScript()).isEqualTo(RedisScriptRunner.Script.DECIDE_WINDOW);
			List<List<Long>> general = decideInTurn(RedisScriptRunner.Script.DECIDE, keys.keys("general"), arguments,
					calls, second, timeSlots[shape]);
			List<List<Long>> own = decideInTurn(RedisScriptRunner.Script.DECIDE_WINDOW, keys.keys("own"), arguments,
					calls, second, timeSlots[shape]);
			assertThat(own).as(name).isEqualTo(general);
			// a key whose last write admitted a call at once: its expiries, each a window's period
			long[][] once = { { 1, 0, 1 } };
			assertThat(decideInTurn(RedisScriptRunner.Script.DECIDE_WINDOW, keys.keys("own-once"), arguments, once,
					second, timeSlots[shape]))
				.as(name)
				.isEqualTo(decideInTurn(RedisScriptRunner.Script.DECIDE, keys.keys("general-once"), arguments, once,
						second, timeSlots[shape]));
			// rejected by the first window until its first entry leaves, an hour after it came
			assertThat(general.get(3)).as(name).startsWith(0L, 0L, 0L);
			// reserved then, and the next two when the second window frees two, two hours after
			assertThat(general.get(5)).as(name).startsWith(1L, 0L, hour);
			assertThat(general.get(6)).as(name).startsWith(1L, 0L, 2 * hour);
			// every admitted call's entry in each window: sequence, cost, time
			assertThat(general.get(calls.length + 2)).as(name).hasSize(4 * 3).endsWith(4L, 2L, 2 * hour);
		}
	}

	/**
	 * Runs decisions ({cost, max wait, commit}) on one key, and then reads its state: each reply,
	 * then the state (its slots timeSlots hold times, a slot not set is Long.MIN_VALUE), then each
	 * window's entries (sequence, cost, time), with their times relative to the key's first
	 * decision and rounded to the resolution, so that runs at different server times compare
	 * exactly, and last each key's expiry in seconds after the first decision. A duration from now
	 * to a time is that time, relative; a zero duration (now itself) and a time not set (0) stay
	 * zero.
	 */
	private static List<List<Long>> decideInTurn(RedisScriptRunner.Script script, byte[][] keys,
			ScriptArguments arguments, long[][] calls, long resolution, int... timeSlots) throws Exception {
		List<List<Long>> replies = new ArrayList<>();
		long first = -1;
		for (long[] call : calls) {
			List<?> raw = runner.run(script, keys, arguments.decide(call[2] == 1, call[0], call[1], 0, 0),
					TimeUnit.SECONDS.toNanos(5)).get();
			ByteBuffer packed = ByteBuffer.wrap((byte[]) raw.get(0)).order(ByteOrder.LITTLE_ENDIAN);
			long[] reply = new long[packed.remaining() / Double.BYTES];
			for (int i = 0; i < reply.length; i++) {
				reply[i] = (long) packed.getDouble();
			}
			long now = reply[ScriptArguments.ReplyField.NOW.ordinal()];
			first = (first < 0) ? now : first;
			long wait = reply[ScriptArguments.ReplyField.WAIT.ordinal()];
			long seenAt = now + wait;
			reply[ScriptArguments.ReplyField.NOW.ordinal()] = 0;
			reply[ScriptArguments.ReplyField.BEFORE_UPDATED.ordinal()] = rounded(
					relative(reply[ScriptArguments.ReplyField.BEFORE_UPDATED.ordinal()], -first), resolution);
			reply[ScriptArguments.ReplyField.AFTER_UPDATED.ordinal()] = rounded(
					relative(reply[ScriptArguments.ReplyField.AFTER_UPDATED.ordinal()], -first), resolution);
			reply[ScriptArguments.ReplyField.WAIT.ordinal()] = rounded(relative(wait, now - first), resolution);
			reply[ScriptArguments.ReplyField.RETRY_AFTER.ordinal()] = rounded(
					relative(reply[ScriptArguments.ReplyField.RETRY_AFTER.ordinal()], now - first), resolution);
			for (int untilMore = ScriptArguments.ReplyField.values().length + 1; untilMore < reply.length; untilMore += 2) {
				reply[untilMore] = rounded(relative(reply[untilMore], seenAt - first), resolution);
			}
			replies.add(Arrays.stream(reply).boxed().toList());
		}
		ByteBuffer state = ByteBuffer.wrap(server.connect().get(keys[0]).get()).order(ByteOrder.LITTLE_ENDIAN);
		List<Long> slots = new ArrayList<>();
		while (state.hasRemaining()) {
			double slot = state.getDouble();
			boolean time = Arrays.stream(timeSlots).anyMatch((index) -> index == slots.size());
			slots.add(Double.isNaN(slot) ? Long.MIN_VALUE : (time ? rounded((long) slot - first, resolution) : (long) slot));
		}
		replies.add(slots);
		for (int i = 1; i < keys.length; i++) {
			List<Long> entries = new ArrayList<>();
			// oldest first: scored by minus their time
			for (ScoredValue<byte[]> entry : server.connect().zrevrangeWithScores(keys[i], 0, -1).get()) {
				// packed: its time (minus its score), its sequence, its cost when more than 1
				ByteBuffer member = ByteBuffer.wrap(entry.getValue()).order(ByteOrder.LITTLE_ENDIAN);
				double time = member.getDouble();
				assertThat(time).isEqualTo(-entry.getScore());
				entries.add((long) member.getDouble());
				entries.add(member.hasRemaining() ? (long) member.getDouble() : 1);
				entries.add(rounded((long) time - first, resolution));
			}
			replies.add(entries);
		}
		// each key's expiry relative to the first decision, to the second (the runs' calls are
		// milliseconds apart); -2 for a key that does not exist
		List<String> time = server.commands().time();
		long sinceFirstMillis = (Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1)) - first) / 1000;
		List<Long> expiries = new ArrayList<>();
		for (byte[] key : keys) {
			long ttl = server.commands().pttl(new String(key, StandardCharsets.UTF_8));
			expiries.add((ttl < 0) ? ttl : Math.round((sinceFirstMillis + ttl) / 1000.0));
		}
		replies.add(expiries);
		return replies;
	}

	private static long relative(long duration, long since) {
		return (duration == 0) ? 0 : duration + since;
	}

	private static long rounded(long time, long resolution) {
		return Math.round((double) time / resolution) * resolution;
	}

	@Test
	void exactWindowCountsEveryEntryUntilItsOldestLeavesAndPrunesItThen() {
		// The script prunes only once the oldest entry can have left: decisions before then must
		// still count both entries, and the first after it must free exactly the one that left.
		RateLimiter limiter = limiter("boundary", RateLimiterSettings.builder().window(2, Duration.ofSeconds(2)));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		StoreContractTests.sleep(1000);
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		// the second call ran on the server before this, however late a busy machine let it come
		long secondAnswered = System.nanoTime();
		RateLimitDecision rejected = null;
		for (int i = 0; i < 5; i++) {
			rejected = limiter.tryAcquire("k", 1);
			assertThat(rejected.isPermitted()).isFalse();
			assertThat(rejected.getRemaining()).isZero();
		}
		// the first entry leaves in under a second: that is when more comes, and no sooner
		assertThat(rejected.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
		assertThat(rejected.getQuotas().get(0).reset()).isEqualTo(rejected.getRetryAfter());
		StoreContractTests.sleep(rejected.getRetryAfter().toMillis() + 20);
		long thirdSent = System.nanoTime();
		RateLimitDecision third = limiter.tryAcquire("k", 1);
		assertThat(third.isPermitted()).isTrue();
		// the oldest now is the second call's, which leaves two seconds after it ran: no later
		// than two seconds less the time that passed between its answer and this call
		assertThat(third.getRemaining()).isZero();
		assertThat(third.getQuotas().get(0).reset()).isPositive()
			.isLessThanOrEqualTo(Duration.ofSeconds(2).minusNanos(thirdSent - secondAnswered));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
	}

	@Test
	void exactWindowFreesTheWholeCostOfAnEntryThatLeaves() {
		// An entry of cost 3 leaves while a later one of cost 1 stays: 3 are free again, not 1.
		RateLimiter limiter = limiter("heavy", RateLimiterSettings.builder().window(5, Duration.ofSeconds(2)));
		assertThat(limiter.tryAcquire("k", 3).isPermitted()).isTrue();
		StoreContractTests.sleep(1000);
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 2).isPermitted()).isFalse();
		StoreContractTests.sleep(1200);
		RateLimitDecision four = limiter.tryAcquire("k", 4);
		assertThat(four.isPermitted()).isTrue();
		assertThat(four.getRemaining()).isZero();
		assertThat(limiter.inspect("k").getRemaining()).isZero();
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
	}

	@Test
	void exactWindowWhoseOldestCallIsGivenBackTellsWhenTheNextOneLeaves() {
		RateLimiter limiter = limiter("oldest", RateLimiterSettings.builder().window(3, Duration.ofSeconds(2)));
		Reservation first = limiter.reserve("k", 1, Duration.ZERO);
		assertThat(first.getDecision().isPermitted()).isTrue();
		StoreContractTests.sleep(800);
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		first.cancel();
		Quota window = limiter.inspect("k").getQuotas().get(0);
		assertThat(window.remaining()).isEqualTo(2);
		// the second call's entry, two seconds after it, not the given-back first one's
		assertThat(window.reset()).isGreaterThan(Duration.ofMillis(1200)).isLessThanOrEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void rejectedCallThatFreesWindowEntriesKeepsTheStateExpiry() {
		RateLimiter limiter = limiter("kept", RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.window(5, Duration.ofMillis(200)));
		assertThat(limiter.tryAcquire("k", 2).isPermitted()).isTrue();
		StoreContractTests.sleep(300);
		// the window's entry has left (written), the bucket rejects (nothing taken)
		RateLimitDecision rejected = limiter.tryAcquire("k", 1);
		assertThat(rejected.isPermitted()).isFalse();
		assertThat(rejected.getQuotas().get(1).remaining()).isEqualTo(5);
		assertThat(server.keys(this.prefix + "kept:*")).singleElement().satisfies((key) -> {
			assertThat(key).endsWith(":s");
			// two tokens at one an hour
			assertThat(server.commands().pttl(key)).isPositive().isLessThanOrEqualTo(Duration.ofHours(2).toMillis());
		});
	}

	@Test
	void stateOfAnotherShapeIsTakenForNone() throws Exception {
		RateLimiterSettings.Builder bucket = RateLimiterSettings.builder()
			.tokenBucket(5, 1, Duration.ofHours(1), RefillStrategy.GREEDY);
		byte[] state = new RedisKeys(this.prefix, "shaped", bucket.store(RedisRateLimitStore.TYPE).build())
			.keys("k")[0];
		List<String> time = server.commands().time();
		double now = Long.parseLong(time.get(0)) * 1_000_000.0 + Long.parseLong(time.get(1));
		// shape 1: a token bucket alone, then its tokens, time and version
		server.connect().set(state, doubles(1, 0, now, 1), SetArgs.Builder.px(60_000)).get();
		RateLimiter limiter = limiter("shaped", bucket);
		assertThat(limiter.inspect("k").getRemaining()).isZero();
		// as long, but marked with the shape of a token bucket and one counter window: not this one's
		server.connect().set(state, doubles(1 + 4 + 8, 0, now, 1), SetArgs.Builder.px(60_000)).get();
		RateLimitDecision fresh = limiter.tryAcquire("k", 1);
		assertThat(fresh.isPermitted()).isTrue();
		assertThat(fresh.getRemaining()).isEqualTo(4);
	}

	@ParameterizedTest
	@CsvSource({ "false,false", "false,true", "true,false", "true,true" })
	void exactWindowFreesEveryEntryThatLeftSinceTheLastDecision(boolean maxConcurrent, boolean heavy) {
		// Two entries leave at once while two later ones stay: the prune removes both (by score, as
		// more than one left), whatever they cost, and tells the oldest left apart from them.
		// heavy: the first two cost 2 and 1, else 1 each
		int first = heavy ? 2 : 1;
		RateLimiterSettings.Builder settings = window(first + 3, Duration.ofSeconds(2), maxConcurrent);
		RateLimiter limiter = limiter("burst-" + maxConcurrent + "-" + heavy, settings);
		// with max-concurrent, reserving: its permits are returned by cancelling
		IntFunction<RateLimitDecision> take = (cost) -> maxConcurrent
				? limiter.reserve("k", cost, Duration.ZERO).getDecision() : limiter.tryAcquire("k", cost);
		assertThat(take.apply(first).isPermitted()).isTrue();
		assertThat(take.apply(1).isPermitted()).isTrue();
		long firstAnswered = System.nanoTime();
		StoreContractTests.sleep(1000);
		assertThat(take.apply(1).isPermitted()).isTrue();
		assertThat(take.apply(1).isPermitted()).isTrue();
		long laterAnswered = System.nanoTime();
		StoreContractTests.sleep(Math.max(2300 - (laterAnswered - firstAnswered) / 1_000_000, 0));
		// two seconds after the first two, not yet after the later two (unless the machine stalled)
		long decisionSent = System.nanoTime();
		assertThat(decisionSent - firstAnswered).isGreaterThan(Duration.ofSeconds(2).toNanos());
		RateLimitDecision freed = take.apply(first + 1);
		assertThat(freed.isPermitted()).isTrue();
		assertThat(freed.getRemaining()).isZero();
		// more comes when the later two leave, two seconds after they came
		assertThat(freed.getQuotas().get(0).reset()).isPositive()
			.isLessThanOrEqualTo(Duration.ofSeconds(2).minusNanos(decisionSent - laterAnswered));
		assertThat(take.apply(1).isPermitted()).isFalse();
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void exactWindowPrunesRightWhenItsOldestEntryIsNotKnown(boolean maxConcurrent) {
		// The oldest call is given back, so the state no longer knows which entry is the oldest;
		// when the next one leaves, the prune finds it, removes it alone and learns the one after.
		RateLimiterSettings.Builder settings = window(3, Duration.ofSeconds(2), maxConcurrent);
		RateLimiter limiter = limiter("unknown-oldest-" + maxConcurrent, settings);
		Reservation first = limiter.reserve("k", 1, Duration.ZERO);
		assertThat(first.getDecision().isPermitted()).isTrue();
		StoreContractTests.sleep(600);
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isTrue();
		long secondAnswered = System.nanoTime();
		StoreContractTests.sleep(1000);
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isTrue();
		long thirdAnswered = System.nanoTime();
		first.cancel();
		StoreContractTests.sleep(Math.max(2400 - (System.nanoTime() - secondAnswered) / 1_000_000, 0));
		// the second entry has left, the third not yet (unless the machine stalled)
		long decisionSent = System.nanoTime();
		assertThat(decisionSent - secondAnswered).isGreaterThan(Duration.ofSeconds(2).toNanos());
		RateLimitDecision fourth = limiter.reserve("k", 1, Duration.ZERO).getDecision();
		assertThat(fourth.isPermitted()).isTrue();
		// the third and the fourth are held
		assertThat(fourth.getRemaining()).isEqualTo(1);
		// the oldest now is the third, which leaves two seconds after it came
		assertThat(fourth.getQuotas().get(0).reset()).isPositive()
			.isLessThanOrEqualTo(Duration.ofSeconds(2).minusNanos(decisionSent - thirdAnswered));
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void exactWindowEntriesOfAStateOfAnotherShapeAreForgottenWithIt(boolean maxConcurrent) throws Exception {
		// What an earlier shape of the limiter (a token bucket alone) left: its state, and three
		// entries in the window's set made 900 ms ago, counted by that state only.
		OneWindow window = oneWindowAfter("reshaped-" + maxConcurrent, maxConcurrent, (keys, at) -> {
			server.connect().set(keys[0], doubles(1, 0, at, 1), SetArgs.Builder.px(60_000)).get();
			for (int sequence = 101; sequence <= 103; sequence++) {
				server.connect().zadd(keys[1], -at, doubles(at, sequence)).get();
			}
		});
		RateLimitDecision full = window.decideThreeAndOneMore();
		// the window's own three entries leave a second after they came, not when the old ones do
		assertThat(full.getRetryAfter()).isGreaterThan(Duration.ofMillis(500));
		StoreContractTests.sleep(200);
		assertThat(window.decide().isPermitted()).isFalse();
		assertThat(server.commands().zcard(window.entries())).isEqualTo(3);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void stateWrittenWhenEntriesWereDecimalIsTakenForNoneWithItsEntries(boolean maxConcurrent) throws Exception {
		// The same limiter as an earlier version left it: its shape without packed entries (8 for
		// one exact window, 2 for the leases), the sequence (and the typical hold), then the
		// window's held, heavy, latest and oldest, and three entries "<sequence>:<cost>".
		OneWindow window = oneWindowAfter("decimal-" + maxConcurrent, maxConcurrent, (keys, at) -> {
			byte[] state = maxConcurrent ? doubles(2 + 8, 103, 0, 3, 0, at, at) : doubles(8, 103, 3, 0, at, at);
			server.connect().set(keys[0], state, SetArgs.Builder.px(60_000)).get();
			for (int sequence = 101; sequence <= 103; sequence++) {
				server.commands().zadd(new String(keys[1], StandardCharsets.UTF_8), at, sequence + ":1");
			}
		});
		window.decideThreeAndOneMore();
		assertThat(window.limiter().getStoreErrors()).isZero();
		assertThat(server.commands().zcard(window.entries())).isEqualTo(3);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void exactWindowWhoseEntriesWereEvictedRejectsUntilItsNewestWouldHaveLeft(boolean maxConcurrent) {
		// Redis may evict a window's set and keep its state (under maxmemory, any key may go): the
		// state still counts the calls, but no longer knows when each leaves. The window then rejects
		// until the newest of them would have left, when all surely have: never more than its limit,
		// and no store error.
		RateLimiterSettings.Builder settings = window(3, Duration.ofSeconds(10), maxConcurrent);
		RateLimiter limiter = limiter("evicted-" + maxConcurrent, settings);
		Reservation oldest = limiter.reserve("k", 1, Duration.ZERO);
		assertThat(oldest.getDecision().isPermitted()).isTrue();
		StoreContractTests.sleep(300);
		long newestSent = System.nanoTime();
		assertThat(limiter.reserve("k", 2, Duration.ZERO).getDecision().isPermitted()).isTrue();
		// the oldest call given back: the state no longer knows which entry is the oldest
		oldest.cancel();
		evict("evicted-" + maxConcurrent, "w1");
		RateLimitDecision inspected = limiter.inspect("k");
		long inspectedAnswered = System.nanoTime();
		assertThat(inspected.getRemaining()).isEqualTo(1);
		Quota window = inspected.getQuotas().get(0);
		assertThat(window.reset()).isGreaterThan(Duration.ofSeconds(10).minusNanos(inspectedAnswered - newestSent))
			.isLessThanOrEqualTo(Duration.ofSeconds(10));
		RateLimitDecision rejected = limiter.reserve("k", 2, Duration.ZERO).getDecision();
		long rejectedAnswered = System.nanoTime();
		assertThat(rejected.isPermitted()).isFalse();
		// when the newest call leaves, ten seconds after it was made
		assertThat(rejected.getRetryAfter()).isGreaterThan(Duration.ofSeconds(10).minusNanos(rejectedAnswered - newestSent))
			.isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThat(limiter.getStoreErrors()).isZero();
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void exactWindowWhoseEveryCallIsGivenBackAdmitsAtOnce(boolean laterFirst) {
		// A call reserved for later is the window's newest: no call is admitted before it. Given back,
		// with the one before it (in either order), the window holds none, and nothing is to wait for.
		// An earlier call's permit, still held, keeps the key's state (else it is deleted, as new).
		RateLimiter limiter = limiter("all-given-back-" + laterFirst, RateLimiterSettings.builder()
			.window(1, Duration.ofSeconds(1))
			.maxConcurrent(10, Duration.ofMinutes(1)));
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isTrue();
		StoreContractTests.sleep(1100);
		Reservation now = limiter.reserve("k", 1, Duration.ZERO);
		Reservation later = limiter.reserve("k", 1, Duration.ofSeconds(3));
		assertThat(later.getDecision().getWait()).isPositive();
		// the newest given back first: the one before it is the newest then; else the set is emptied by it
		(laterFirst ? later : now).cancel();
		(laterFirst ? now : later).cancel();
		RateLimitDecision decision = limiter.reserve("k", 1, Duration.ZERO).getDecision();
		assertThat(decision.isPermitted()).isTrue();
		assertThat(decision.getWait()).isZero();
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void exactWindowWhoseStateWasEvictedStartsAfreshWithoutItsEntries(boolean maxConcurrent) {
		// The state evicted, its window's entries stay: a new state would not count them, yet
		// take them for its own when they leave (freeing what its own calls hold). So they go too,
		// and the key starts afresh, as one whose state expired.
		RateLimiterSettings.Builder settings = window(3, Duration.ofSeconds(10), maxConcurrent);
		String name = "state-evicted-" + maxConcurrent;
		RateLimiter limiter = limiter(name, settings);
		reserveAdmitted(limiter, 3);
		StoreContractTests.sleep(1000);
		evict(name, "s");
		long afreshSent = System.nanoTime();
		reserveAdmitted(limiter, 3);
		RateLimitDecision rejected = limiter.reserve("k", 1, Duration.ZERO).getDecision();
		long rejectedAnswered = System.nanoTime();
		assertThat(rejected.isPermitted()).isFalse();
		// more when the first call made afresh leaves, not when the first one before did
		assertThat(rejected.getRetryAfter()).isGreaterThan(Duration.ofSeconds(10).minusNanos(rejectedAnswered - afreshSent));
		assertThat(server.commands().zcard(redisKey(name, "w1"))).isEqualTo(3);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void exactWindowStillCountsEvictedCallsWhenTheOnlyLaterOneIsGivenBack(boolean maxConcurrent) {
		// Two calls, their entries evicted; a third, given back: the set is empty, but the state
		// still holds the first two, which leave no sooner than the third would have.
		RateLimiterSettings.Builder settings = window(3, Duration.ofSeconds(10), maxConcurrent);
		String name = "evicted-given-back-" + maxConcurrent;
		RateLimiter limiter = limiter(name, settings);
		reserveAdmitted(limiter, 2);
		evict(name, "w1");
		Reservation third = limiter.reserve("k", 1, Duration.ZERO);
		assertThat(third.getDecision().isPermitted()).isTrue();
		third.cancel();
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isTrue();
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isFalse();
		assertThat(limiter.getStoreErrors()).isZero();
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void fullRedisRefusesANewKeysFirstDecision(boolean maxConcurrent) {
		// maxmemory reached, noeviction: Redis refuses a script's writes until it has written one,
		// so a new key's decision must not write anything (such as a delete of nothing) before
		// its entry: refused, it is decided by on-store-failure, and nothing is stored.
		RateLimiterSettings.Builder settings = window(3, Duration.ofSeconds(10), maxConcurrent)
			.onStoreFailure(StoreFailurePolicy.FAIL_CLOSED);
		try (RedisServer full = RedisServer.start()) {
			RateLimiter limiter = limiter(full.runner(), Duration.ofSeconds(2), "full", settings);
			assertThat(limiter.reserve("a", 1, Duration.ZERO).getDecision().isPermitted()).isTrue();
			int keys = full.keys("*").size();
			full.commands().configSet("maxmemory-policy", "noeviction");
			full.commands().configSet("maxmemory", "1");
			assertThat(limiter.reserve("b", 1, Duration.ZERO).getDecision().isPermitted()).isFalse();
			assertThat(limiter.getStoreErrors()).isOne();
			assertThat(full.keys("*")).hasSize(keys);
		}
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void fullRedisStillRejectsACallOverTheLimit(boolean maxConcurrent) {
		// A rejection that only learned which entry is the oldest would keep that in the state: on a
		// full Redis (noeviction), the write is refused, and the rejection stands without it rather
		// than fail (and be admitted by fail-open).
		RateLimiterSettings.Builder settings = window(2, Duration.ofSeconds(10), maxConcurrent)
			.onStoreFailure(StoreFailurePolicy.FAIL_OPEN);
		try (RedisServer full = RedisServer.start()) {
			RateLimiter limiter = limiter(full.runner(), Duration.ofSeconds(2), "full", settings);
			Reservation oldest = limiter.reserve("k", 1, Duration.ZERO);
			assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isTrue();
			// given back: the state no longer knows which entry is the oldest
			oldest.cancel();
			full.commands().configSet("maxmemory-policy", "noeviction");
			full.commands().configSet("maxmemory", "1");
			RateLimitDecision rejected = limiter.reserve("k", 2, Duration.ZERO).getDecision();
			assertThat(rejected.isPermitted()).isFalse();
			assertThat(rejected.getRetryAfter()).isPositive();
			assertThat(limiter.getStoreErrors()).isZero();
		}
	}

	@Test
	void counterWindowStateHoldsAtMostEightReservationsAhead() {
		// the journal of reservations ahead follows the state's fields, three numbers a call, only
		// while it holds any: a key's memory stays bounded however far ahead calls reserve
		RateLimiter limiter = limiter("journal", RateLimiterSettings.builder()
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.window(1, Duration.ofHours(1)));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		String state = redisKey("journal", "s");
		long fields = server.commands().strlen(state);
		List<Reservation> reservations = new ArrayList<>();
		List<Long> lengths = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			Reservation reservation = limiter.reserve("k", 1, Duration.ofDays(1));
			assertThat(reservation.getDecision().isPermitted()).isTrue();
			reservations.add(reservation);
			lengths.add(server.commands().strlen(state) - fields);
		}
		assertThat(lengths).containsExactly(24L, 48L, 72L, 96L, 120L, 144L, 168L, 192L, 192L, 192L);
		// the eight it holds given back, it is gone; the two older ones still count
		for (int i = 9; i >= 2; i--) {
			reservations.get(i).cancel();
		}
		assertThat(server.commands().strlen(state)).isEqualTo(fields);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void callGivenBackAfterItsKeyStartedAfreshLeavesTheNewCallsAlone(boolean counter) {
		// A call given back after its key was back to new, forgotten, and taken from afresh: the
		// give-back must not take the new state for the one its call left (the same version of the
		// bucket, the same number in the counter window) and restore what that call found.
		RateLimiterSettings.Builder settings = counter
				? RateLimiterSettings.builder().windowAlgorithm(WindowAlgorithm.COUNTER).window(10, Duration.ofMillis(300))
				: RateLimiterSettings.builder().tokenBucket(10, 10, Duration.ofSeconds(1), RefillStrategy.GREEDY);
		String name = "afresh-" + counter;
		RateLimiter limiter = limiter(name, settings);
		Reservation late = limiter.reserve("k", 1, Duration.ZERO);
		assertThat(late.getDecision().isPermitted()).isTrue();
		StoreContractTests.sleep(700);
		assertThat(server.keys(this.prefix + name + ":*")).isEmpty();
		assertThat(limiter.tryAcquire("k", 10).isPermitted()).isTrue();
		late.cancel();
		assertThat(limiter.tryAcquire("k", 10).isPermitted()).isFalse();
	}

	@Test
	@Tag("not-under-mutation") // fails PIT's coverage run, though not alone, nor after the tests that ran before it there
	void decisionWhoseReplyCameAfterTheTimeoutIsGivenBack() throws Exception {
		// Redis ran the decision in time (its deadline passed only later) and took the token, but
		// its reply was slow to come back: the caller, told of a failure, did not get the token, so
		// the late reply gives it back.
		try (DelayingProxy proxy = new DelayingProxy(server.port())) {
			RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", proxy.port()));
			try {
				RedisScriptRunner slow = RedisServer
					.warm(new RedisScriptRunner(() -> client.connect(ByteArrayCodec.INSTANCE).async()));
				RateLimiter limiter = limiter(slow, Duration.ofMillis(200), "late-reply", RateLimiterSettings.builder()
					.tokenBucket(1, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
					.onStoreFailure(StoreFailurePolicy.FAIL_CLOSED));
				// a first reply teaches the store the server's clock: its decisions carry a deadline
				assertThat(limiter.tryAcquire("other", 1).isPermitted()).isTrue();
				proxy.delayReplies(Duration.ofMillis(600));
				assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
				assertThat(limiter.getStoreErrors()).isOne();
				proxy.delayReplies(Duration.ZERO);
				// decided by Redis again (not by on-store-failure), the token is back; a busy machine
				// (PIT's instrumented run beside another build) took more than 5 s to get there
				await().pollInSameThread().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
					long errors = limiter.getStoreErrors();
					RateLimitDecision inspected = limiter.inspect("k");
					assertThat(limiter.getStoreErrors()).isEqualTo(errors);
					assertThat(inspected.getRemaining()).isOne();
				});
				assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
			}
			finally {
				client.shutdown();
			}
		}
	}

	@Test
	void interruptedThreadIsDecidedAsAnyOtherAndStaysInterrupted() {
		// Its wait for the reply, bounded by the decision timeout, is not a store failure: under
		// fail-open that would admit every call of an interrupted thread.
		RateLimiter limiter = limiter("interrupted", RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.onStoreFailure(StoreFailurePolicy.FAIL_OPEN));
		Thread.currentThread().interrupt();
		try {
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
			for (int i = 0; i < 3; i++) {
				assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
			}
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(limiter.getStoreErrors()).isZero();
	}

	@Test
	void permitsHeldWhenTheStateWasEvictedStillCount() {
		// The leases outlive the evicted state that numbered their calls: the calls after it are
		// numbered past them, so that none takes the lease of a call still holding its permit.
		String name = "leases-outlive";
		RateLimiter limiter = limiter(name, RateLimiterSettings.builder().maxConcurrent(3, Duration.ofMinutes(1)));
		reserveAdmitted(limiter, 2);
		evict(name, "s");
		RateLimitDecision third = limiter.reserve("k", 1, Duration.ZERO).getDecision();
		assertThat(third.isPermitted()).isTrue();
		assertThat(third.getInFlight()).isEqualTo(3);
		RateLimitDecision fourth = limiter.reserve("k", 1, Duration.ZERO).getDecision();
		assertThat(fourth.isPermitted()).isFalse();
		assertThat(fourth.isConcurrencyLimited()).isTrue();
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void permitReturnedAfterTheStateWasEvictedIsFreeAtOnce(boolean givenBack) {
		// The state evicted while a call holds its permit: returned (closed after its call, or
		// given back unused), the permit is free at once, not only when its lease times out.
		String name = "returned-after-eviction-" + givenBack;
		RateLimiter limiter = limiter(name, RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)));
		Runnable returned;
		if (givenBack) {
			Reservation reservation = limiter.reserve("k", 1, Duration.ZERO);
			assertThat(reservation.getDecision().isPermitted()).isTrue();
			returned = reservation::cancel;
		}
		else {
			returned = limiter.acquire("k", 1, Duration.ZERO)::close;
		}
		evict(name, "s");
		returned.run();
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isTrue();
		assertThat(limiter.getStoreErrors()).isZero();
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void lateReturnLeavesTheLeaseOfALaterCallWithTheSameNumber(boolean givenBack) {
		// A replica promoted before it had the latest call (here: the state and leases restored as
		// they were before it) numbers the next call as the lost one; the lost call's return,
		// arriving late, must not take the later call's permit.
		String name = "repeated-number-" + givenBack;
		RateLimiter limiter = limiter(name, RateLimiterSettings.builder().maxConcurrent(2, Duration.ofMinutes(1)));
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isTrue();
		List<String> keys = List.of(redisKey(name, "s"), redisKey(name, "l"));
		List<byte[]> before = keys.stream().map(server.commands()::dump).toList();
		Reservation lost = limiter.reserve("k", 1, Duration.ZERO);
		for (int i = 0; i < keys.size(); i++) {
			server.commands().restore(keys.get(i), before.get(i), RestoreArgs.Builder.ttl(60_000).replace());
		}
		StoreContractTests.sleep(2); // a microsecond later at least: another admission time
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isTrue();

		if (givenBack) {
			lost.cancel();
		}
		else {
			lost.release();
		}

		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isConcurrencyLimited()).isTrue();
	}

	@Test
	void exactWindowWhoseEntriesAllLeftBesideHeldPermitsIsEmptyAgain() {
		// The permits keep the key's state for their lease timeout, beyond the window's entries:
		// once the newest entry has left, the window is empty, its set gone with its count.
		RateLimiter limiter = limiter("all-left", RateLimiterSettings.builder()
			.window(2, Duration.ofSeconds(1))
			.maxConcurrent(10, Duration.ofMinutes(1)));
		reserveAdmitted(limiter, 2);
		assertThat(limiter.inspect("k").getRemaining()).isZero();
		StoreContractTests.sleep(1200);
		Quota window = limiter.inspect("k").getQuotas().get(0);
		assertThat(window.remaining()).isEqualTo(2);
		assertThat(window.reset()).isZero();
		RateLimitDecision both = limiter.reserve("k", 2, Duration.ZERO).getDecision();
		assertThat(both.isPermitted()).isTrue();
		assertThat(both.getInFlight()).isEqualTo(3);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void exactWindowScriptRefusesACostAboveItsLimitThatNothingCouldFree(boolean maxConcurrent) throws Exception {
		// The limiter refuses such a cost before asking Redis; a script asked anyway fails rather
		// than admit it once the window's entries have left.
		RateLimiterSettings settings = window(3, Duration.ofSeconds(1), maxConcurrent).store(RedisRateLimitStore.TYPE)
			.build();
		String name = "above-limit-" + maxConcurrent;
		ScriptArguments arguments = new ScriptArguments(name, settings);
		byte[][] keys = new RedisKeys(this.prefix, name, settings).keys("k");
		List<?> full = runner.run(arguments.decideScript(), keys, arguments.decide(true, 3, 0, 0, 0),
				TimeUnit.SECONDS.toNanos(5)).get();
		assertThat(ScriptArguments.Reply.parse(full).status()).isOne();
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> runner.run(arguments.decideScript(), keys,
					arguments.decide(true, 4, TimeUnit.SECONDS.toMicros(5), 0, 0), TimeUnit.SECONDS.toNanos(5))
				.get())
			.withMessageContaining("cost 4 exceeds the window limit of 3");
	}

	/**
	 * One exact window (decide_window.lua), or with max-concurrent the permits too (decide.lua and
	 * state.lua).
	 */
	private static RateLimiterSettings.Builder window(long limit, Duration period, boolean maxConcurrent) {
		RateLimiterSettings.Builder settings = RateLimiterSettings.builder().window(limit, period);
		return maxConcurrent ? settings.maxConcurrent(10, Duration.ofMinutes(1)) : settings;
	}

	/** Deletes, as Redis evicting it would, one part of a limiter's keys: "s" the state, "w1" the first window's set. */
	private void evict(String limiterName, String part) {
		server.commands().del(redisKey(limiterName, part));
	}

	/** The one Redis key of a limiter's keys that ends with a part: "s" the state, "w1" the first window's set. */
	private String redisKey(String limiterName, String part) {
		List<String> keys = server.keys(this.prefix + limiterName + ":*")
			.stream()
			.filter((key) -> key.endsWith(":" + part))
			.toList();
		assertThat(keys).hasSize(1);
		return keys.get(0);
	}

	/** Reserves calls of cost 1 for key "k", each admitted at once. */
	private static void reserveAdmitted(RateLimiter limiter, int calls) {
		for (int i = 0; i < calls; i++) {
			assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isTrue();
		}
	}

	/** Writes what an earlier limiter left on a key's Redis keys, its entries made at a time. */
	private interface Leftovers {

		void write(byte[][] keys, long at) throws Exception;

	}

	/**
	 * A limiter with one exact window of 3 a second (decide_window.lua), or with max-concurrent too
	 * (decide.lua and state.lua), on a key where an earlier limiter left its state and its window's
	 * entries, made 900 ms ago (the window's set lives a minute more).
	 */
	private OneWindow oneWindowAfter(String name, boolean maxConcurrent, Leftovers leftovers) throws Exception {
		RateLimiterSettings.Builder settings = window(3, Duration.ofSeconds(1), maxConcurrent);
		byte[][] keys = new RedisKeys(this.prefix, name, settings.store(RedisRateLimitStore.TYPE).build()).keys("k");
		List<String> time = server.commands().time();
		long now = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
		leftovers.write(keys, now - 900_000);
		String entries = new String(keys[1], StandardCharsets.UTF_8);
		server.commands().pexpire(entries, 60_000);
		return new OneWindow(limiter(name, settings), maxConcurrent, entries);
	}

	/** The limiter of {@link #oneWindowAfter}, and the name of its window's set for key "k". */
	private record OneWindow(RateLimiter limiter, boolean maxConcurrent, String entries) {

		/** A decision: by reserving with max-concurrent (its permits are returned by cancelling). */
		RateLimitDecision decide() {
			return this.maxConcurrent ? this.limiter.reserve("k", 1, Duration.ZERO).getDecision()
					: this.limiter.tryAcquire("k", 1);
		}

		/** Three calls the window admits, as if the leftovers were not there, and the fourth it rejects. */
		RateLimitDecision decideThreeAndOneMore() {
			for (int i = 0; i < 3; i++) {
				assertThat(decide().isPermitted()).isTrue();
			}
			RateLimitDecision full = decide();
			assertThat(full.isPermitted()).isFalse();
			return full;
		}

	}

	@Test
	void scriptDivisionsAreExactForEveryIntegerBelow2To53() throws Exception {
		// helpers.lua's fdiv and cdiv, run by the server: the quotients nearest a whole number, for
		// divisors small and large, up to the largest dividend the scripts may form; each written
		// with all its digits (a reply number would be truncated to an integer)
		long[] divisors = { 1, 3, 7, 1000, 999_999_937, (1L << 26) + 1, (1L << 40) - 87, ScriptArguments.EXACT - 1 };
		List<Long> cases = new ArrayList<>();
		for (long divisor : divisors) {
			long top = (ScriptArguments.EXACT - 1) / divisor;
			for (long quotient : new long[] { 0, 1, 2, top - 1, top }) {
				for (long offset = -1; offset <= 1; offset++) {
					long dividend = quotient * divisor + offset;
					if (dividend >= 0 && dividend < ScriptArguments.EXACT) {
						cases.add(dividend);
						cases.add(divisor);
					}
				}
			}
		}
		String script = new String(RedisScriptRunner.class.getResourceAsStream("helpers.lua").readAllBytes(),
				StandardCharsets.UTF_8) + "\nlocal quotients = {}\nfor i = 2, #ARGV, 2 do\n"
				+ "\tlocal a, b = tonumber(ARGV[i]), tonumber(ARGV[i + 1])\n"
				+ "\tquotients[#quotients + 1] = string.format('%.17g', fdiv(a, b))\n"
				+ "\tquotients[#quotients + 1] = string.format('%.17g', cdiv(a, b))\nend\n"
				+ "return quotients";
		byte[][] arguments = new byte[1 + cases.size()][];
		arguments[0] = new ScriptArguments("division", RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build()).decide(true, 1, 0, 0, 0)[0];
		for (int i = 0; i < cases.size(); i++) {
			arguments[1 + i] = Long.toString(cases.get(i)).getBytes(StandardCharsets.US_ASCII);
		}
		List<Object> quotients = server.connect()
			.<List<Object>>eval(script, ScriptOutputType.MULTI, new byte[0][], arguments)
			.get(5, TimeUnit.SECONDS);
		assertThat(quotients).hasSize(cases.size());
		for (int i = 0; i < cases.size(); i += 2) {
			long a = cases.get(i);
			long b = cases.get(i + 1);
			assertThat(decimal(quotients.get(i))).as("fdiv(%d, %d)", a, b).isEqualTo(Long.toString(Math.floorDiv(a, b)));
			assertThat(decimal(quotients.get(i + 1))).as("cdiv(%d, %d)", a, b)
				.isEqualTo(Long.toString(-Math.floorDiv(-a, b)));
		}
	}

	private static String decimal(Object reply) {
		return new String((byte[]) reply, StandardCharsets.US_ASCII);
	}

	/** A state as the scripts pack it: little-endian doubles. */
	private static byte[] doubles(double... values) {
		ByteBuffer buffer = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
		for (double value : values) {
			buffer.putDouble(value);
		}
		return buffer.array();
	}

}
