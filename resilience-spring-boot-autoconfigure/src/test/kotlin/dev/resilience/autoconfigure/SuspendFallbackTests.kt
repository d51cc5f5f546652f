package dev.resilience.autoconfigure

import dev.resilience.autoconfigure.retry.RetryAutoConfiguration
import dev.resilience.retry.Retryable
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import java.io.IOException
import java.util.concurrent.atomic.AtomicInteger

/**
 * The `fallbackMethod` of a `@Retryable` suspend function is a suspend function with the same
 * parameters plus a trailing exception parameter, as for any other method: in the JVM signature
 * of both, the `Continuation` comes last, after the exception.
 */
class SuspendFallbackTests {

	private val contextRunner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java,
			ResilienceAutoConfiguration::class.java, RetryAutoConfiguration::class.java))
		.withBean(FallingBackService::class.java)
		.withPropertyValues("resilience.retries.flaky.max-retries=1", "resilience.retries.flaky.delay=1ms",
			"resilience.retries.flaky.jitter=none")

	@Test
	fun suspendFallbackStartsAndIsCalledWhenRetryingEndsInFailure() {
		contextRunner.run { context ->
			assertThat(context).hasNotFailed()
			val service = context.getBean(FallingBackService::class.java)
			assertThat(runBlocking { service.fetch("a") }).isEqualTo("fallback for a after down 2")
			assertThat(service.calls.get()).isEqualTo(2)
		}
	}

	open class FallingBackService {

		open val calls = AtomicInteger()

		@Retryable(name = "flaky", fallbackMethod = "fetchFallback")
		open suspend fun fetch(id: String): String {
			val call = calls.incrementAndGet()
			delay(1)
			throw IOException("down $call")
		}

		open suspend fun fetchFallback(id: String, failure: IOException): String {
			delay(1)
			return "fallback for $id after ${failure.message}"
		}

	}

}
