package dev.resilience.autoconfigure

import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration
import dev.resilience.pool.ConnectionPool
import dev.resilience.pool.WithConnection
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.slf4j.MDC
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext

/**
 * A `suspend` function under `@WithConnection` holds its connection as the pool's `current()`
 * through every resumption, on whatever thread it resumes, and so does a pool it calls.
 */
class SuspendWithConnectionTests {

	private val contextRunner = ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java,
			ResilienceAutoConfiguration::class.java, ConnectionPoolAutoConfiguration::class.java))
		.withBean(PooledService::class.java)
		.withBean(InnerService::class.java)
		.withPropertyValues("resilience.pools.narrow.max-size=1", "resilience.pools.other.max-size=1")

	@Test
	fun currentWorksAfterTheFunctionResumedOnAnotherThread() {
		contextRunner.run { context ->
			val service = context.getBean(PooledService::class.java)
			val seen = runBlocking { service.acrossSuspensions() }
			assertThat(seen).hasSize(3).doesNotContainNull()
			assertThat(seen.toSet()).hasSize(1)
			assertThat(pool(context, "narrow").stats.active).isZero()
		}
	}

	@Test
	fun theCallersMdcIsRestoredAfterTheFunctionResumed() {
		contextRunner.run { context ->
			val service = context.getBean(PooledService::class.java)
			MDC.put("requestId", "r-s")
			val seen = try {
				runBlocking { service.mdcAcrossSuspensions() }
			}
			finally {
				MDC.clear()
			}
			assertThat(seen).containsExactly("r-s", "r-s")
		}
	}

	@Test
	fun aPoolCalledFromTheFunctionSeesBothConnections() {
		contextRunner.run { context ->
			val service = context.getBean(PooledService::class.java)
			val seen = runBlocking { service.callsOther() }
			assertThat(seen).hasSize(3)
			assertThat(seen[2]).isEqualTo(listOf(seen[0], seen[1]))
		}
	}

	open class PooledService(private val context: ApplicationContext) {

		@WithConnection(pool = "narrow", timeout = "10s")
		open suspend fun acrossSuspensions(): List<Any> {
			val pool = pool(context, "narrow")
			val first = pool.current()
			delay(5)
			val second = pool.current()
			val third = withContext(Dispatchers.Default) {
				delay(1)
				pool.current()
			}
			return listOf(first, second, third)
		}

		@WithConnection(pool = "narrow", timeout = "10s")
		open suspend fun mdcAcrossSuspensions(): List<String?> {
			delay(5)
			val afterDelay = MDC.get("requestId")
			val elsewhere = withContext(Dispatchers.Default) { MDC.get("requestId") }
			return listOf(afterDelay, elsewhere)
		}

		@WithConnection(pool = "narrow", timeout = "10s")
		open suspend fun callsOther(): List<Any> {
			delay(1)
			val narrow = pool(context, "narrow").current()
			val both = context.getBean(InnerService::class.java).both()
			return listOf(narrow, both[1], both)
		}

	}

	open class InnerService(private val context: ApplicationContext) {

		@WithConnection(pool = "other", timeout = "10s")
		open suspend fun both(): List<Any> {
			delay(1)
			return listOf(pool(context, "narrow").current(), pool(context, "other").current())
		}

	}

	companion object {

		@Suppress("UNCHECKED_CAST")
		fun pool(context: ApplicationContext, name: String): ConnectionPool<Any> =
			context.getBean(name, ConnectionPool::class.java) as ConnectionPool<Any>

	}

}
