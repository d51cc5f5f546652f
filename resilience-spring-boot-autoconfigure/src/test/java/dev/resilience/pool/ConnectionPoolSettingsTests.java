package dev.resilience.pool;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Tests of the settings' checks, the Commons Pool configuration made of them, the worker threads
 * on Java 17, and the factory's defaults.
 */
class ConnectionPoolSettingsTests {

	@Test
	void defaultsAreThoseOfTheSpec() {
		assertThat(ConnectionPoolSettings.builder().build())
			.isEqualTo(new ConnectionPoolSettings(8, 0, Duration.ofSeconds(30), false, null));
	}

	@Test
	void boundaryValuesAreAccepted() {
		assertThat(ConnectionPoolSettings.builder()
			.maxSize(1)
			.minIdle(1)
			.timeout(Duration.ofNanos(1))
			.maxIdleTime(Duration.ofNanos(1))
			.validateOnCheckout(true)
			.build())
			.isEqualTo(new ConnectionPoolSettings(1, 1, Duration.ofNanos(1), true, Duration.ofNanos(1)));
		assertThat(ConnectionPoolSettings.builder().minIdle(0).build().minIdle()).isZero();
	}

	@Test
	void outOfRangeValuesAreRejectedNamingTheSetting() {
		assertThatIllegalArgumentException().isThrownBy(() -> ConnectionPoolSettings.builder().maxSize(0).build())
			.withMessage("max-size must be positive but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> ConnectionPoolSettings.builder().minIdle(-1).build())
			.withMessage("min-idle must be between 0 and max-size (8) but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> ConnectionPoolSettings.builder().minIdle(9).build())
			.withMessage("min-idle must be between 0 and max-size (8) but was 9");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ConnectionPoolSettings.builder().timeout(Duration.ZERO).build())
			.withMessage("timeout must be positive but was 0ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ConnectionPoolSettings.builder().timeout(Duration.ofSeconds(-1)).build())
			.withMessage("timeout must be positive but was -1s");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ConnectionPoolSettings.builder().maxIdleTime(Duration.ZERO).build())
			.withMessage("max-idle-time must be positive but was 0ms");
	}

	@Test
	void thePublicConstructorRejectsWhatTheBuilderRejects() {
		Duration second = Duration.ofSeconds(1);
		assertThatIllegalArgumentException().isThrownBy(() -> new ConnectionPoolSettings(0, 0, second, false, null))
			.withMessage("max-size must be positive but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> new ConnectionPoolSettings(-3, 0, second, false, null))
			.withMessage("max-size must be positive but was -3");
		assertThatIllegalArgumentException().isThrownBy(() -> new ConnectionPoolSettings(8, -1, second, false, null))
			.withMessage("min-idle must be between 0 and max-size (8) but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> new ConnectionPoolSettings(8, 9, second, false, null))
			.withMessage("min-idle must be between 0 and max-size (8) but was 9");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ConnectionPoolSettings(8, 0, Duration.ZERO, false, null))
			.withMessage("timeout must be positive but was 0ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ConnectionPoolSettings(8, 0, Duration.ofSeconds(-1), false, null))
			.withMessage("timeout must be positive but was -1s");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ConnectionPoolSettings(8, 0, second, false, Duration.ZERO))
			.withMessage("max-idle-time must be positive but was 0ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ConnectionPoolSettings(8, 0, second, false, Duration.ofMillis(-1)))
			.withMessage("max-idle-time must be positive but was -1ms");
		assertThatNullPointerException().isThrownBy(() -> new ConnectionPoolSettings(8, 0, null, false, null))
			.withMessage("timeout");
	}

	@Test
	void commonsPoolIsSizedBlockingUnfairAndOutOfJmx() {
		GenericObjectPoolConfig<Handle<Object>> config = DeadlinePool
			.config(ConnectionPoolSettings.builder().maxSize(5).minIdle(2).build());
		assertThat(config.getJmxEnabled()).isFalse();
		assertThat(config.getMaxTotal()).isEqualTo(5);
		assertThat(config.getMaxIdle()).isEqualTo(5);
		assertThat(config.getMinIdle()).isEqualTo(2);
		assertThat(config.getBlockWhenExhausted()).isTrue();
		assertThat(config.getFairness()).isFalse();
		assertThat(config.getTestOnBorrow()).isFalse();
		assertThat(config.getNumTestsPerEvictionRun()).isEqualTo(-1);
		// min-idle alone: maintenance every 30 s, no idle connection closed.
		assertThat(config.getDurationBetweenEvictionRuns()).isEqualTo(Duration.ofSeconds(30));
		assertThat(config.getMinEvictableIdleDuration()).isNegative();
	}

	@Test
	void withoutMinIdleOrMaxIdleTimeThereIsNoMaintenance() {
		GenericObjectPoolConfig<Handle<Object>> config = DeadlinePool.config(ConnectionPoolSettings.builder().build());
		assertThat(config.getDurationBetweenEvictionRuns()).isNegative();
	}

	@Test
	void maintenanceRunsEveryMaxIdleTimeBetweenOneAndThirtySeconds() {
		assertThat(maintenancePeriod(Duration.ofMillis(20))).isEqualTo(Duration.ofSeconds(1));
		assertThat(maintenancePeriod(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(1));
		assertThat(maintenancePeriod(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(10));
		assertThat(maintenancePeriod(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(30));
		assertThat(maintenancePeriod(Duration.ofMinutes(5))).isEqualTo(Duration.ofSeconds(30));
		assertThat(DeadlinePool.config(ConnectionPoolSettings.builder().maxIdleTime(Duration.ofMinutes(5)).build())
			.getMinEvictableIdleDuration()).isEqualTo(Duration.ofMinutes(5));
	}

	@Test
	void anAbsurdMaxIdleTimeRunsMaintenanceEveryThirtySecondsInsteadOfOverflowing() {
		Duration forever = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
		assertThat(maintenancePeriod(forever)).isEqualTo(Duration.ofSeconds(30));
		assertThat(maintenancePeriod(Duration.ofMillis(Long.MAX_VALUE).plusMillis(1))).isEqualTo(Duration.ofSeconds(30));
		assertThat(DeadlinePool.config(ConnectionPoolSettings.builder().maxIdleTime(forever).build())
			.getMinEvictableIdleDuration()).isEqualTo(forever);
	}

	@Test
	void aPoolGetsTwiceItsSizeInNamedDaemonThreadsThatEndWhenIdleOnJava17() throws Exception {
		ExecutorService executor = WorkerThreads.create("llm", 4);
		try {
			Thread worker = executor.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
			if (Runtime.version().feature() < 21) {
				ThreadPoolExecutor threads = (ThreadPoolExecutor) executor;
				assertThat(threads.getMaximumPoolSize()).isEqualTo(8);
				assertThat(threads.getCorePoolSize()).isEqualTo(8);
				assertThat(threads.allowsCoreThreadTimeOut()).isTrue();
				assertThat(threads.getKeepAliveTime(TimeUnit.SECONDS)).isEqualTo(30);
				assertThat(worker.getName()).isEqualTo("resilience-pool-llm-1");
				assertThat(worker.isDaemon()).isTrue();
			}
			else {
				assertThat(executor).isNotInstanceOf(ThreadPoolExecutor.class);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void aFactoryValidatesEveryConnectionAndDestroysNothingByDefault() throws Exception {
		ConnectionFactory<StringBuilder> factory = StringBuilder::new;
		StringBuilder connection = factory.create();
		assertThat(factory.validate(connection)).isTrue();
		factory.destroy(connection);
	}

	@Test
	void exceptionsCarryPoolTimeoutAndElapsed() {
		DeadlineExceededException checkout = new CheckoutTimeoutException("llm", Duration.ofSeconds(15),
				Duration.ofSeconds(15));
		assertThat(checkout.getPool()).isEqualTo("llm");
		assertThat(checkout.getTimeout()).isEqualTo(Duration.ofSeconds(15));
		assertThat(checkout.getElapsed()).isEqualTo(Duration.ofSeconds(15));
		// Durations are written as application.yml takes them, rounded to the millisecond.
		assertThat(new CheckoutTimeoutException("llm", Duration.ofMillis(250), Duration.ofNanos(250_400_000)))
			.hasMessage("No connection of pool 'llm' became free within 250ms (waited 250ms); the work did not run");
		assertThat(new OperationTimeoutException("llm", Duration.ofSeconds(15), Duration.ofMillis(15_002)))
			.hasMessage("Work with a connection of pool 'llm' did not finish within 15s (gave up after 15002ms)");
	}

	private static Duration maintenancePeriod(Duration maxIdleTime) {
		return DeadlinePool.config(ConnectionPoolSettings.builder().maxIdleTime(maxIdleTime).build())
			.getDurationBetweenEvictionRuns();
	}

}
