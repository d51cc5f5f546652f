package dev.resilience.autoconfigure

import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration
import dev.resilience.pool.OperationTimeoutException
import dev.resilience.ratelimit.AdaptiveProbe
import dev.resilience.ratelimit.RateLimited
import dev.resilience.ratelimit.RateLimiterRegistry
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.http.HttpHeaders
import org.springframework.http.HttpStatus
import org.springframework.web.client.HttpClientErrorException
import java.nio.charset.StandardCharsets
import java.time.Duration

/**
 * A Kotlin `suspend` function limited by a limiter with `max-concurrent: adaptive` (SPEC §11): a
 * call that ends with a 429 or a timeout lowers its key's limit before the caller's coroutine
 * resumes with the failure; a plain failure does not. Each key first runs its probe, and every
 * call takes 10 ms on the test clock, the probe's latency, so latency alone never cuts the limit.
 */
class SuspendAdaptiveDropTests {

	private val contextRunner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java,
			ResilienceAutoConfiguration::class.java, RateLimiterAutoConfiguration::class.java))
		.withUserConfiguration(TestTimeConfiguration::class.java)
		.withBean(FailingService::class.java)
		.withPropertyValues(
			"resilience.rate-limiters.llm.max-concurrent=adaptive",
			"resilience.rate-limiters.llm.adaptive-concurrency.initial-limit=10")

	@Test
	fun aSuspendFunctionThatGetsA429OrATimeoutLowersItsKeysLimitAndAPlainFailureDoesNot() {
		contextRunner.run { context ->
			val service = context.getBean(FailingService::class.java)
			val limiter = context.getBean(RateLimiterRegistry::class.java).get("llm")
			val ticker = context.getBean(TestTicker::class.java)
			for (key in listOf("throttled", "timeout", "plain")) {
				AdaptiveProbe.run(limiter, key, { latency -> ticker.advance(latency) }, CALL)
				assertThat(limiter.inspect(key).maxConcurrent).isEqualTo(10)
			}

			assertThrows<HttpClientErrorException> { runBlocking { service.call("throttled") } }
			assertThrows<OperationTimeoutException> { runBlocking { service.call("timeout") } }
			assertThrows<IllegalStateException> { runBlocking { service.call("plain") } }

			assertThat(limiter.inspect("throttled").maxConcurrent).isEqualTo(9)
			assertThat(limiter.inspect("timeout").maxConcurrent).isEqualTo(9)
			assertThat(limiter.inspect("plain").maxConcurrent).isEqualTo(10)
			for (key in listOf("throttled", "timeout", "plain")) {
				assertThat(limiter.inspect(key).inFlight).isZero()
			}
		}
	}

	companion object {

		/** How long each call takes on the test clock, the probe's calls included. */
		private val CALL: Duration = Duration.ofMillis(10)

	}

	open class FailingService(private val ticker: TestTicker) {

		@RateLimited(name = "llm", key = "#outcome")
		open suspend fun call(outcome: String): String {
			delay(10)
			ticker.advance(CALL)
			throw when (outcome) {
				"throttled" -> HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests",
					HttpHeaders(), ByteArray(0), StandardCharsets.UTF_8)
				"timeout" -> OperationTimeoutException("partner", Duration.ofSeconds(1), Duration.ofSeconds(1))
				else -> IllegalStateException("not an answer")
			}
		}

	}

}
