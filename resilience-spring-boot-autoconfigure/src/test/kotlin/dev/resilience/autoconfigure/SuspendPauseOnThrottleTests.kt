package dev.resilience.autoconfigure

import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration
import dev.resilience.ratelimit.RateLimitExceededException
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
import java.util.concurrent.atomic.AtomicInteger

/**
 * A Kotlin `suspend` function limited by a limiter with `pause-on-throttle` (SPEC §10): a call
 * that ends with a 429 pauses its key before the caller's coroutine resumes with the failure, and
 * the next call of that key is rejected with the rest of the pause.
 */
class SuspendPauseOnThrottleTests {

	private val contextRunner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java,
			ResilienceAutoConfiguration::class.java, RateLimiterAutoConfiguration::class.java))
		.withBean(ThrottledService::class.java)
		.withPropertyValues(
			"resilience.rate-limiters.partner.max-concurrent=4",
			"resilience.rate-limiters.partner.pause-on-throttle.enabled=true",
			"resilience.rate-limiters.partner.pause-on-throttle.resume-jitter=0")

	@Test
	fun aSuspendFunctionThatGetsA429PausesItsKeyBeforeTheCallerResumes() {
		contextRunner.run { context ->
			val service = context.getBean(ThrottledService::class.java)
			val limiter = context.getBean(RateLimiterRegistry::class.java).get("partner")

			assertThrows<HttpClientErrorException> { runBlocking { service.call("alice") } }
			val pause = limiter.inspect("alice")
			assertThat(pause.isPaused).isTrue()
			assertThat(pause.pause).isBetween(Duration.ofSeconds(7), Duration.ofSeconds(8))
			assertThat(pause.inFlight).isZero()

			val rejected = assertThrows<RateLimitExceededException> { runBlocking { service.call("alice") } }
			assertThat(rejected.retryAfter).isBetween(Duration.ofSeconds(7), Duration.ofSeconds(8))
			assertThat(service.calls.get()).isEqualTo(1)
			assertThat(limiter.inspect("bob").isPaused).isFalse()
		}
	}

	open class ThrottledService {

		open val calls = AtomicInteger()

		@RateLimited(name = "partner", key = "#customer")
		open suspend fun call(customer: String): String {
			calls.incrementAndGet()
			delay(10)
			val headers = HttpHeaders()
			headers.add("Retry-After", "8")
			throw HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests", headers,
				ByteArray(0), StandardCharsets.UTF_8)
		}

	}

}
