package dev.resilience.autoconfigure

import dev.resilience.autoconfigure.poll.PollAutoConfiguration
import dev.resilience.poll.PollUntil
import kotlinx.coroutines.delay
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/**
 * A `@PollUntil` suspend function that returns nothing (`Unit`) and sets no `until` stops
 * startup, as a `void` method does: the default condition (a present result) could never be met.
 */
class SuspendPollUntilStartupTests {

	private val contextRunner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java,
			ResilienceAutoConfiguration::class.java, PollAutoConfiguration::class.java))

	@Test
	fun unitSuspendFunctionWithoutUntilStopsStartup() {
		contextRunner.withBean(RefreshingService::class.java).run { context ->
			assertThat(context).hasFailed()
			assertThat(Failures.messages(context.startupFailure!!)).anySatisfy { message ->
				assertThat(message).contains("@PollUntil on RefreshingService.refresh(Continuation) returns nothing")
			}
		}
	}

	@Test
	fun suspendFunctionReturningAValueWithoutUntilStarts() {
		contextRunner.withBean(CountingService::class.java).run { context -> assertThat(context).hasNotFailed() }
	}

	open class RefreshingService {

		@PollUntil
		open suspend fun refresh() {
			delay(1)
		}

	}

	open class CountingService {

		@PollUntil
		open suspend fun count(): Int {
			delay(1)
			return 1
		}

	}

}
