package dev.resilience.ratelimit.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.redis.RedisScriptRunner.RedisUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * What {@link RedisScriptRunner} does without a server: connecting while attempts fail, on a thread
 * of its own, and what it makes of a failure (the cause behind the wrappers of futures, and the short
 * description and the node that log lines and health details show).
 */
class RedisScriptRunnerTests {

	@Test
	void connectTriesAgainAfterGrowingGapsAndGivesUpAtItsTimeout() {
		AtomicInteger attempts = new AtomicInteger();
		RedisScriptRunner runner = new RedisScriptRunner(() -> {
			attempts.incrementAndGet();
			throw new IllegalStateException("Connection refused");
		});
		long start = System.nanoTime();
		assertThat(runner.connect(Duration.ofMillis(350))).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		// at 0, 100 and 300 ms (gaps of 100 then 200 ms): not a busy loop; two on a slow machine
		assertThat(attempts.get()).isBetween(2, 3);
		assertThat(runner).hasToString("RedisScriptRunner[not connected]");
	}

	@Test
	void attemptsToConnectStartOneAtATimeAndOnlyOnceTheGapAfterTheLastFailureHasPassed() throws Exception {
		ManualTicker ticker = new ManualTicker();
		AtomicInteger attempts = new AtomicInteger();
		RedisScriptRunner runner = new RedisScriptRunner(() -> {
			attempts.incrementAndGet();
			throw new IllegalStateException("Connection refused");
		}, Duration.ofMillis(300), ManualScheduler.direct(), ticker);
		List<Integer> seen = new ArrayList<>();
		// each step: a command, which starts an attempt when one is due, then a health check, which
		// waits for the attempt in flight and starts none of its own
		seen.add(commandAndCheck(runner, attempts));
		for (long gap : new long[] { 100, 200, 300, 300 }) {
			ticker.advance(Duration.ofMillis(gap).minusNanos(1));
			seen.add(commandAndCheck(runner, attempts));
			ticker.advanceNanos(1);
			seen.add(commandAndCheck(runner, attempts));
		}
		// gaps of 100, 200, then 300 ms (the connect timeout) from each failure
		assertThat(seen).containsExactly(1, 1, 2, 2, 3, 3, 4, 4, 5);
	}

	@Test
	void noOtherAttemptToConnectStartsWhileOneIsInFlight() throws Exception {
		AtomicInteger attempts = new AtomicInteger();
		CountDownLatch hanging = new CountDownLatch(1);
		RedisScriptRunner runner = new RedisScriptRunner(() -> {
			attempts.incrementAndGet();
			try {
				hanging.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			throw new IllegalStateException("Connection refused");
		}, Duration.ofMillis(300), ManualScheduler.direct(), new ManualTicker());
		try {
			for (int i = 0; i < 100; i++) {
				assertThat(runner.unlink(new byte[][] { KEY }, 1_000_000)).isCompletedExceptionally();
			}
			await().atMost(Duration.ofSeconds(30)).until(() -> attempts.get() == 1);
			assertThat(attempts.get()).isEqualTo(1);
		}
		finally {
			hanging.countDown();
		}
	}

	@Test
	void connectWhoseTimeoutEndsInTheGapAfterAFailureIsBackAtItsTimeoutWithoutSpinning() {
		AtomicInteger attempts = new AtomicInteger();
		AtomicInteger readings = new AtomicInteger();
		// a ticker that never moves: the gap after the first failure never passes
		RedisScriptRunner runner = new RedisScriptRunner(() -> {
			attempts.incrementAndGet();
			throw new IllegalStateException("Connection refused");
		}, Duration.ofMillis(300), ManualScheduler.direct(), () -> {
			readings.incrementAndGet();
			return 0;
		});
		long start = System.nanoTime();
		assertThat(assertTimeoutPreemptively(Duration.ofSeconds(10), () -> runner.connect(Duration.ofMillis(250))))
			.isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(250), Duration.ofSeconds(5));
		assertThat(attempts.get()).isEqualTo(1);
		// it slept through the gap, waking every 100 ms at most: not a busy loop's thousands of readings
		assertThat(readings.get()).isLessThan(20);
	}

	@Test
	void attemptsToConnectRunOnADaemonThreadOfTheirOwn() throws Exception {
		CompletableFuture<Thread> connecting = new CompletableFuture<>();
		RedisScriptRunner runner = new RedisScriptRunner(() -> {
			connecting.complete(Thread.currentThread());
			throw new IllegalStateException("Connection refused");
		});
		runner.connectInBackground();
		Thread thread = connecting.get(30, TimeUnit.SECONDS);
		assertThat(thread).isNotSameAs(Thread.currentThread());
		// never what keeps an application's JVM from exiting
		assertThat(thread.isDaemon()).isTrue();
		assertThat(thread.getName()).isEqualTo("resilience-redis-connect");
	}

	@Test
	void logLinesNameTheClusterNodeAndNothingForTheOneServer() {
		assertThat(RedisScriptRunner.where(RedisScriptRunner.SERVER)).isEmpty();
		assertThat(RedisScriptRunner.where("e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca"))
			.isEqualTo(" (cluster node e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca)");
	}

	private static final byte[] KEY = { 'k' };

	/** A command (which fails: not connected), then a health check; the attempts made until then. */
	private static int commandAndCheck(RedisScriptRunner runner, AtomicInteger attempts) {
		assertThat(runner.unlink(new byte[][] { KEY }, 1_000_000)).isCompletedExceptionally();
		assertThatThrownBy(() -> runner.ping(System.nanoTime() + TimeUnit.SECONDS.toNanos(30)))
			.isInstanceOf(ExecutionException.class);
		return attempts.get();
	}

	@Test
	void connectThatHangsIsGivenUpAtTheTimeout() {
		CountDownLatch never = new CountDownLatch(1);
		RedisScriptRunner runner = new RedisScriptRunner(() -> {
			try {
				never.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			throw new IllegalStateException("not connecting");
		});
		try {
			long start = System.nanoTime();
			assertThat(runner.connect(Duration.ofMillis(300))).isFalse();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(300), Duration.ofSeconds(3));
		}
		finally {
			never.countDown();
		}
	}

	@Test
	void interruptedConnectIsBackAtOnceStillInterrupted() throws Exception {
		CountDownLatch attempting = new CountDownLatch(1);
		CountDownLatch never = new CountDownLatch(1);
		RedisScriptRunner runner = new RedisScriptRunner(() -> {
			attempting.countDown();
			try {
				never.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			throw new IllegalStateException("not connecting");
		});
		runner.connectInBackground();
		attempting.await();
		Thread.currentThread().interrupt();
		try {
			long start = System.nanoTime();
			assertThat(runner.connect(Duration.ofSeconds(30))).isFalse();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
			never.countDown();
		}
	}

	@Test
	void causeIsFoundBehindEveryWrapperOfAFuture() {
		IOException reset = new IOException("Connection reset by peer");
		assertThat(RedisScriptRunner.cause(new CompletionException(new ExecutionException(reset)))).isSameAs(reset);
		assertThat(RedisScriptRunner.cause(new ExecutionException(new CompletionException(reset)))).isSameAs(reset);
		assertThat(RedisScriptRunner.cause(reset)).isSameAs(reset);
	}

	@Test
	void wrapperWithoutACauseIsTheCause() {
		CompletionException bare = new CompletionException("cancelled", null);
		assertThat(RedisScriptRunner.cause(bare)).isSameAs(bare);
	}

	@Test
	void descriptionNamesTheFailureAndItsMessage() {
		assertThat(RedisScriptRunner.describe(new CompletionException(new IOException("Connection reset by peer"))))
			.isEqualTo("IOException: Connection reset by peer");
		assertThat(RedisScriptRunner.describe(new IllegalStateException())).isEqualTo("IllegalStateException");
	}

	@Test
	void descriptionOfAnUnavailableServerIsItsMessageAlone() {
		assertThat(RedisScriptRunner.describe(new CompletionException(new RedisUnavailableException("not connected yet"))))
			.isEqualTo("Redis is out: not connected yet");
	}

}
