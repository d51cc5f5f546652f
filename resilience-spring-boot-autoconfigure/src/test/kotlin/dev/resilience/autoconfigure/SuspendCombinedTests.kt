package dev.resilience.autoconfigure

import dev.resilience.autoconfigure.poll.PollAutoConfiguration
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration
import dev.resilience.pool.WithConnection
import dev.resilience.ratelimit.RateLimited
import dev.resilience.ratelimit.RateLimiterRegistry
import dev.resilience.retry.Retryable
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.slf4j.MDC
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger

/**
 * A Kotlin `suspend` function under `@Retryable`, `@RateLimited` and `@WithConnection` at once.
 */
class SuspendCombinedTests {

	private val contextRunner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java,
			ResilienceAutoConfiguration::class.java, RateLimiterAutoConfiguration::class.java,
			RetryAutoConfiguration::class.java, PollAutoConfiguration::class.java,
			ConnectionPoolAutoConfiguration::class.java))
		.withBean(CombinedService::class.java)
		.withPropertyValues(
			"resilience.rate-limiters.ten.token-bucket.capacity=10",
			"resilience.rate-limiters.ten.token-bucket.refill-tokens=10",
			"resilience.rate-limiters.ten.token-bucket.refill-period=1h",
			"resilience.retries.quick.max-retries=2", "resilience.retries.quick.delay=5ms",
			"resilience.retries.quick.jitter=none", "resilience.pools.narrow.max-size=1")

	@Test
	fun eachAttemptAsksTheLimiterAgainAndSeesTheCallersMdc() {
		contextRunner.run { context ->
			val service = context.getBean(CombinedService::class.java)
			MDC.put("requestId", "r-k")
			val result = try {
				runBlocking { service.flaky() }
			}
			finally {
				MDC.clear()
			}
			assertThat(result).isEqualTo("ok")
			assertThat(service.seen).containsExactly("r-k", "r-k", "r-k")
			assertThat(context.getBean(RateLimiterRegistry::class.java).get("ten").inspect("").remaining)
				.isEqualTo(7)
		}
	}

	open class CombinedService {

		open val seen = CopyOnWriteArrayList<String>()

		open val calls = AtomicInteger()

		@Retryable(name = "quick")
		@RateLimited("ten")
		@WithConnection(pool = "narrow", timeout = "1s")
		open suspend fun flaky(): String {
			seen.add("${MDC.get("requestId")}")
			delay(1)
			if (calls.incrementAndGet() < 3) {
				throw IllegalStateException("down")
			}
			return "ok"
		}

	}

}
