package dev.resilience.autoconfigure

import dev.resilience.autoconfigure.poll.PollAutoConfiguration
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration
import dev.resilience.poll.PollExhaustedException
import dev.resilience.poll.PollUntil
import dev.resilience.pool.OperationTimeoutException
import dev.resilience.pool.WithConnection
import dev.resilience.ratelimit.RateLimitExceededException
import dev.resilience.ratelimit.RateLimited
import dev.resilience.retry.RetriesExhaustedException
import dev.resilience.retry.Retryable
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.springframework.aop.support.AopUtils
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.io.IOException
import java.util.concurrent.atomic.AtomicInteger

/**
 * Kotlin `suspend` functions under each annotation, through real proxies: Spring's AOP hands the
 * advice the `Mono` it adapts a suspend function to, so each annotation decides, waits and holds
 * per call exactly as for a `Mono`, and the caller's coroutine suspends instead of blocking.
 */
class SuspendFunctionTests {

	private val contextRunner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java,
			ResilienceAutoConfiguration::class.java, RateLimiterAutoConfiguration::class.java,
			RetryAutoConfiguration::class.java, PollAutoConfiguration::class.java,
			ConnectionPoolAutoConfiguration::class.java))
		.withBean(SuspendingService::class.java)
		.withPropertyValues(
			"resilience.rate-limiters.one-at-a-time.max-concurrent=1",
			"resilience.retries.flaky.max-retries=2", "resilience.retries.flaky.delay=5ms",
			"resilience.retries.flaky.jitter=none", "resilience.retries.flaky.retry-on=java.io.IOException",
			"resilience.polls.counting.delay=5ms", "resilience.polls.counting.max-attempts=5",
			"resilience.pools.narrow.max-size=1")

	@Test
	fun retryableSuspendFunctionIsCalledAgainUntilItSucceeds() {
		contextRunner.run { context ->
			val service = context.getBean(SuspendingService::class.java)
			assertThat(AopUtils.isAopProxy(service)).isTrue()
			assertThat(runBlocking { service.flaky(2) }).isEqualTo("ok after 3")
			assertThat(service.calls.get()).isEqualTo(3)
		}
	}

	@Test
	fun retryableSuspendFunctionEndsWithTheLastFailureAndItsHistory() {
		contextRunner.run { context ->
			val service = context.getBean(SuspendingService::class.java)
			val failure = assertThrows<IOException> { runBlocking { service.flaky(10) } }
			assertThat(failure).hasMessage("down 3")
			// With assertions on, kotlinx.coroutines rethrows a copy of the exception (stack-trace
			// recovery) whose cause is the original, which carries the history.
			val original = generateSequence<Throwable>(failure) { it.cause }.last()
			assertThat(RetriesExhaustedException.of(original)!!.attempts).hasSize(3)
		}
	}

	@Test
	fun rateLimitedSuspendFunctionHoldsItsPermitWhileSuspended() {
		contextRunner.run { context ->
			val service = context.getBean(SuspendingService::class.java)
			val gate = CompletableDeferred<Unit>()
			runBlocking {
				val first = async { service.limited(gate) }
				withTimeout(5_000) {
					while (service.running.get() == 0) {
						delay(1)
					}
				}
				assertThrows<RateLimitExceededException> { service.limited(CompletableDeferred(Unit)) }
				gate.complete(Unit)
				assertThat(first.await()).isEqualTo("done")
				assertThat(service.limited(CompletableDeferred(Unit))).isEqualTo("done")
			}
		}
	}

	@Test
	fun pollUntilSuspendFunctionPollsUntilTheConditionHolds() {
		contextRunner.run { context ->
			val service = context.getBean(SuspendingService::class.java)
			assertThat(runBlocking { service.count(3) }).isEqualTo(3)
			val exhausted = assertThrows<PollExhaustedException> { runBlocking { service.count(100) } }
			assertThat(exhausted.message).startsWith("Tried 5 times over ")
		}
	}

	@Test
	fun withConnectionSuspendFunctionEndsAtTheDeadline() {
		contextRunner.run { context ->
			val service = context.getBean(SuspendingService::class.java)
			val started = System.nanoTime()
			assertThrows<OperationTimeoutException> { runBlocking { service.hang() } }
			assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(2_000)
			assertThat(runBlocking { service.quick() }).isEqualTo("quick")
		}
	}

	open class SuspendingService {

		// open: a proxy must reach the target's fields through them.
		open val calls = AtomicInteger()

		open val running = AtomicInteger()

		private val counter = AtomicInteger()

		@Retryable(name = "flaky")
		open suspend fun flaky(failures: Int): String {
			val call = calls.incrementAndGet()
			delay(1)
			if (call <= failures) {
				throw IOException("down $call")
			}
			return "ok after $call"
		}

		@RateLimited(name = "one-at-a-time")
		open suspend fun limited(gate: CompletableDeferred<Unit>): String {
			running.incrementAndGet()
			gate.await()
			running.decrementAndGet()
			return "done"
		}

		@PollUntil(name = "counting", until = "#result >= #target")
		open suspend fun count(target: Int): Int {
			delay(1)
			return counter.incrementAndGet()
		}

		@WithConnection(pool = "narrow", timeout = "300ms")
		open suspend fun hang(): String {
			delay(60_000)
			return "never"
		}

		@WithConnection(pool = "narrow", timeout = "1s")
		open suspend fun quick(): String {
			delay(1)
			return "quick"
		}

	}

}
