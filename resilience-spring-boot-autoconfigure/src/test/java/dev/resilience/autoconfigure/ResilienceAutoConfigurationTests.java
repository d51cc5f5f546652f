package dev.resilience.autoconfigure;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.autoconfigure.support.ContinuationScheduler;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ResilienceAutoConfiguration}.
 */
class ResilienceAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class));

	@Test
	void runShouldProvideSystemTickerSleeperAndProperties() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(Ticker.class)
				.hasSingleBean(Sleeper.class)
				.hasSingleBean(ResilienceProperties.class);
			// The system ticker follows System.nanoTime().
			long before = System.nanoTime();
			long reading = context.getBean(Ticker.class).read();
			assertThat(reading).isBetween(before, System.nanoTime());
		});
	}

	@Test
	void runWhenUserDefinesTickerAndSleeperShouldBackOff() {
		this.contextRunner.withUserConfiguration(TestTimeConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(Ticker.class).hasSingleBean(Sleeper.class);
			assertThat(context.getBean(Ticker.class)).isSameAs(context.getBean(TestTicker.class));
			assertThat(context.getBean(Sleeper.class)).isSameAs(context.getBean(TestSleeper.class));
		});
	}

	@Test
	void runWhenUserDefinesOnlyTickerShouldKeepSystemSleeper() {
		this.contextRunner.withBean(TestTicker.class).run((context) -> {
			assertThat(context).hasSingleBean(Ticker.class).hasSingleBean(Sleeper.class);
			assertThat(context.getBean(Ticker.class)).isInstanceOf(TestTicker.class);
			assertThat(context.getBean(Sleeper.class)).isNotInstanceOf(TestSleeper.class);
		});
	}

	@Test
	void runWhenAspectOrderIsSetShouldBindIt() {
		this.contextRunner.withPropertyValues("resilience.aspect-order.rate-limit=42")
			.run((context) -> assertThat(context.getBean(ResilienceProperties.class).getAspectOrder().getRateLimit())
				.isEqualTo(42));
	}

	/** Read by the advisors before the properties are bound: a wrong value must still be named. */
	@ParameterizedTest
	@ValueSource(strings = { "retry", "poll", "rate-limit", "connection" })
	void runWhenAspectOrderIsNotANumberShouldFailNamingTheProperty(String aspect) {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class,
					PollAutoConfiguration.class, ConnectionPoolAutoConfiguration.class))
			.withPropertyValues("resilience.aspect-order." + aspect + "=first")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.satisfies((failure) -> assertThat(Failures.messages(failure))
					.anyMatch((message) -> message.contains("resilience.aspect-order." + aspect))));
	}

	@Test
	void runShouldProvideTheContinuationSchedulerOnDaemonThreads() {
		this.contextRunner.run((context) -> {
			ScheduledExecutorService scheduler = context.getBean(ContinuationScheduler.BEAN_NAME,
					ScheduledExecutorService.class);
			Thread thread = scheduler.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
			assertThat(thread.getName()).startsWith("resilience-scheduler-");
			assertThat(thread.isDaemon()).isTrue();
			assertThat(isVirtual(thread)).isFalse();
		});
	}

	@Test
	void runWhenVirtualThreadsAreEnabledShouldUseThemFromJava21() {
		this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			ScheduledExecutorService scheduler = context.getBean(ContinuationScheduler.BEAN_NAME,
					ScheduledExecutorService.class);
			Thread thread = scheduler.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
			assertThat(thread.getName()).startsWith("resilience-scheduler-");
			// Spring Boot turns virtual threads on only where the JDK has them.
			assertThat(isVirtual(thread)).isEqualTo(Runtime.version().feature() >= 21);
		});
	}

	@Test
	void runWhenUserDefinesTheSchedulerShouldBackOff() {
		ScheduledExecutorService own = Executors.newSingleThreadScheduledExecutor();
		try {
			this.contextRunner.withBean(ContinuationScheduler.BEAN_NAME, ScheduledExecutorService.class, () -> own)
				.run((context) -> assertThat(context.getBean(ContinuationScheduler.BEAN_NAME)).isSameAs(own));
		}
		finally {
			own.shutdownNow();
		}
	}

	@Test
	void closingTheContextShouldStopTheScheduler() {
		ScheduledExecutorService[] scheduler = new ScheduledExecutorService[1];
		this.contextRunner.run((context) -> scheduler[0] = context.getBean(ContinuationScheduler.BEAN_NAME,
				ScheduledExecutorService.class));
		assertThat(scheduler[0].isShutdown()).isTrue();
	}

	private static boolean isVirtual(Thread thread) throws ReflectiveOperationException {
		if (Runtime.version().feature() < 21) {
			return false;
		}
		return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
	}

}
