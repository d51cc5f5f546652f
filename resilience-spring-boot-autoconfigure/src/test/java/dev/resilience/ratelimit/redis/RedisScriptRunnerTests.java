package dev.resilience.ratelimit.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.redis.RedisScriptRunner.RedisUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link RedisScriptRunner} does without a server: connecting while attempts fail, and what it
 * makes of a failure (the cause behind the wrappers of futures, and the short description that log
 * lines and health details show).
 */
class RedisScriptRunnerTests {

	@Test
	void connectTriesAgainEveryTenthOfASecondAndGivesUpAtItsTimeout() {
		AtomicInteger attempts = new AtomicInteger();
		RedisScriptRunner runner = new RedisScriptRunner(() -> {
			attempts.incrementAndGet();
			throw new IllegalStateException("Connection refused");
		});
		long start = System.nanoTime();
		assertThat(runner.connect(Duration.ofMillis(350))).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		// an attempt, then one after each pause of 100 ms: four (five on a slow machine), not a busy loop
		assertThat(attempts.get()).isBetween(3, 6);
		assertThat(runner).hasToString("RedisScriptRunner[not connected]");
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
