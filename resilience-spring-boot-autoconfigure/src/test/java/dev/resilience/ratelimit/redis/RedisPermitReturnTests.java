package dev.resilience.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.Ticker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreFailurePolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Permits returned while Redis is out (a real {@code redis-server}, frozen with {@code SIGSTOP}
 * and found out first, so that the returns fail at once, unsent) are returned once Redis answers
 * again, not when their leases time out an hour later (docs/redis.md).
 */
class RedisPermitReturnTests {

	/*
	 * Every await polls on the test's thread: a poll Awaitility gave up on would otherwise go on
	 * calling Redis on its own thread while the teardown closes the client, and Lettuce's shutdown
	 * then waits for good (seen under PIT).
	 */

	/** Long enough for a busy machine, or mutated code under PIT, to answer in time. */
	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	private final RedisServer server = RedisServer.start();

	/** The operations of the store failures reported since the server was thawed. */
	private final Queue<String> failedAfterThaw = new ConcurrentLinkedQueue<>();

	@AfterEach
	void stop() {
		this.server.thaw();
		this.server.close();
	}

	@Test
	void permitsReturnedWhileRedisWasOutAreReturnedOnceItAnswers() {
		assertPermitsReturnedOnceRedisAnswers(2, 2);
	}

	@Test
	void permitsReturnedWhileRedisWasOutAreKeptForLaterUpToAMaximum() {
		int held = RedisRateLimitStore.MAX_UNSENT_RETURNS + 1;
		// the permit beyond the maximum waits for its lease to time out
		assertPermitsReturnedOnceRedisAnswers(held, held - 1);
	}

	@Test
	void permitReturnedLateDoesNotTeachItsHoldTime() {
		RedisRateLimitStore permits = store(2);
		// one permit held throughout keeps the key's state, where the typical hold is kept
		assertThat(permits.reserve("k", 1, 0).getDecision().isPermitted()).isTrue();
		// the other held for a few milliseconds each time: the typical hold
		for (int i = 0; i < 5; i++) {
			permits.reserve("k", 1, 0).release();
		}
		Reservation held = permits.reserve("k", 1, 0);
		this.server.freeze();
		assertThat(permits.reserve("k", 1, 0).getDecision().isPermitted()).isFalse();
		held.release();
		this.server.thaw();
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
			.until(() -> permits.reserve("k", 1, 0).getDecision().isPermitted());

		// held for the outage (over a second) had it been learned, an eighth of that would be added
		RateLimitDecision rejected = permits.reserve("k", 1, 0).getDecision();
		assertThat(rejected.isConcurrencyLimited()).isTrue();
		assertThat(rejected.getRetryAfter()).isLessThan(Duration.ofMillis(100));
	}

	/**
	 * A return kept while no server is failing: here one failing again as it was sent, as after a
	 * failover the returns meant for a node that never failed. The lease key is made a string, so
	 * that the return fails with an error while the server answers everything else.
	 */
	@Test
	void permitReturnKeptWhileNoServerIsFailingIsSentAgainOnAnAnswerASecondLater() {
		// Far from 0, and half a second past the store's start: a second is then told from the
		// time the return was last sent, not from a sum of times nor from the store's start.
		ManualTicker ticker = new ManualTicker(TimeUnit.HOURS.toNanos(1));
		RedisRateLimitStore permits = store(1, ticker);
		ticker.advanceNanos(RedisRateLimitStore.RESEND_INTERVAL_NANOS / 2);
		Reservation held = permits.reserve("k", 1, 0);
		assertThat(held.getDecision().isPermitted()).isTrue();
		String lease = this.server.keys("permit-return:*").stream()
			.filter((key) -> this.server.commands().type(key).equals("zset"))
			.findFirst()
			.orElseThrow();
		byte[] leaseDump = this.server.commands().dump(lease);
		this.server.commands().del(lease);
		this.server.commands().set(lease, "not a lease");
		held.release();
		assertThat(this.server.errorReplies("WRONGTYPE")).isEqualTo(1);
		assertThat(permits.errorCount()).isEqualTo(1);

		// the next answer ends the server's failures and sends the return again, which fails again
		permits.reserve("other", 1, 0).release();
		await().pollInSameThread().atMost(Duration.ofSeconds(10))
			.until(() -> this.server.errorReplies("WRONGTYPE") == 2);
		assertThat(permits.errorCount()).isEqualTo(1);
		this.server.commands().del(lease);
		this.server.commands().restore(lease, 0, leaseDump);

		// answers under a second after it was last sent leave it kept
		ticker.advanceNanos(RedisRateLimitStore.RESEND_INTERVAL_NANOS - 1);
		permits.reserve("other", 1, 0).release();
		await().pollInSameThread().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
			.until(() -> !permits.reserve("k", 1, 0).getDecision().isPermitted());

		// the first answer a second after it was last sent sends it again, and it is returned
		ticker.advanceNanos(1);
		permits.reserve("other", 1, 0).release();
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
			.until(() -> this.server.commands().zcard(lease) == 0);
		assertThat(permits.reserve("k", 1, 0).getDecision().isPermitted()).isTrue();
		assertThat(this.server.errorReplies("WRONGTYPE")).isEqualTo(2);
	}

	/**
	 * Takes every permit of a key, returns them all while Redis is out, and takes the permits that
	 * are free again once Redis answers: {@code returned} of them, and not one more.
	 */
	private void assertPermitsReturnedOnceRedisAnswers(int maxConcurrent, int returned) {
		RedisRateLimitStore permits = store(maxConcurrent);
		List<Reservation> held = new ArrayList<>();
		for (int i = 0; i < maxConcurrent; i++) {
			held.add(permits.reserve("k", 1, 0));
		}
		assertThat(held).allMatch((reservation) -> reservation.getDecision().isPermitted());
		this.server.freeze();
		assertThat(permits.reserve("k", 1, 0).getDecision().isPermitted()).isFalse();
		held.forEach(Reservation::release);
		assertThat(permits.errorCount()).isEqualTo(1 + maxConcurrent);
		this.failedAfterThaw.clear();
		this.server.thaw();

		// every permit returned is taken again as soon as it is free (one more at most: a limiter
		// admitting every call must not keep the poll going after the await gave up)
		AtomicInteger taken = new AtomicInteger();
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(() -> {
			while (taken.get() <= returned && permits.reserve("k", 1, 0).getDecision().isPermitted()) {
				taken.incrementAndGet();
			}
			return taken.get() >= returned;
		});
		assertThat(taken).hasValue(returned);
		assertThat(permits.reserve("k", 1, 0).getDecision().isConcurrencyLimited()).isTrue();
		// sent one after another: none timed out behind the others
		assertThat(this.failedAfterThaw).doesNotContain("permit-return");
	}

	private RedisRateLimitStore store(int maxConcurrent) {
		return store(maxConcurrent, Ticker.system());
	}

	private RedisRateLimitStore store(int maxConcurrent, Ticker ticker) {
		return new RedisRateLimitStore("returned", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.maxConcurrent(maxConcurrent, Duration.ofHours(1))
			.onStoreFailure(StoreFailurePolicy.FAIL_CLOSED)
			.build(), this.server.runner(), "permit-return:", TIMEOUT,
				List.of((limiter, store, operation, cause) -> this.failedAfterThaw.add(operation)), ticker);
	}

}
