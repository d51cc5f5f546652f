package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestSleeper;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.WindowAlgorithm;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Tests for {@link RateLimiterAutoConfiguration}.
 */
class RateLimiterAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterAutoConfiguration.class, RateLimiterMetricsAutoConfiguration.class));

	@Test
	void runShouldProvideRegistryMethodsAndAspect() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RateLimiterRegistry.class)
				.hasSingleBean(RateLimitedMethods.class)
				.hasSingleBean(RateLimitedAdvisor.class)
				.doesNotHaveBean(RateLimiterMetrics.class);
			assertThat(context.getBean(RateLimiterRegistry.class).getNames()).isEmpty();
		});
	}

	@Test
	void runWhenLimitersAreConfiguredShouldRegisterThemInOrder() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.zeta.windows[0].limit=25",
				"resilience.rate-limiters.zeta.windows[0].period=5s", "resilience.rate-limiters.zeta.windows[1].limit=300",
				"resilience.rate-limiters.zeta.windows[1].period=60s", "resilience.rate-limiters.zeta.window-algorithm=counter",
				"resilience.rate-limiters.alpha.token-bucket.capacity=50",
				"resilience.rate-limiters.alpha.token-bucket.refill-tokens=5",
				"resilience.rate-limiters.alpha.token-bucket.refill-strategy=interval",
				"resilience.rate-limiters.alpha.max-concurrent=10", "resilience.rate-limiters.alpha.lease-timeout=2m",
				"resilience.rate-limiters.alpha.max-wait=250ms")
			.run((context) -> {
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				assertThat(registry.getNames()).containsExactly("zeta", "alpha");
				assertThat(registry.get("zeta").getSettings()).isEqualTo(RateLimiterSettings.builder()
					.window(25, Duration.ofSeconds(5))
					.window(300, Duration.ofSeconds(60))
					.windowAlgorithm(WindowAlgorithm.COUNTER)
					.build());
				assertThat(registry.get("alpha").getSettings()).isEqualTo(RateLimiterSettings.builder()
					.tokenBucket(50, 5, Duration.ofSeconds(1), RefillStrategy.INTERVAL)
					.maxConcurrent(10, Duration.ofMinutes(2))
					.maxWait(Duration.ofMillis(250))
					.build());
				assertThat(registry.get("alpha").getStoreType()).isEqualTo("memory");
			});
	}

	@Test
	void runWhenMaxKeysIsSetShouldMapItToTheSettings() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.small.max-concurrent=1", "resilience.rate-limiters.small.max-keys=500",
					"resilience.rate-limiters.default.max-concurrent=1")
			.run((context) -> {
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				assertThat(registry.get("small").getSettings().maxKeys()).isEqualTo(500);
				assertThat(registry.get("default").getSettings().maxKeys()).isEqualTo(RateLimiterSettings.DEFAULT_MAX_KEYS);
			});
	}

	@Test
	void runShouldThrowRejectionsWithoutStackTracesUnlessAskedFor() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.api.windows[0].limit=1",
				"resilience.rate-limiters.api.windows[0].period=5s")
			.run((context) -> assertThat(secondCall(context.getBean(RateLimiterRegistry.class)).getStackTrace()).isEmpty());
		this.contextRunner.withPropertyValues("resilience.rate-limiters.api.windows[0].limit=1",
				"resilience.rate-limiters.api.windows[0].period=5s", "resilience.rate-limit-stack-traces=true")
			.run((context) -> assertThat(secondCall(context.getBean(RateLimiterRegistry.class)).getStackTrace())
				.isNotEmpty());
	}

	private static RateLimitExceededException secondCall(RateLimiterRegistry registry) {
		registry.get("api").acquire("k", 1, Duration.ZERO).close();
		return catchThrowableOfType(RateLimitExceededException.class,
				() -> registry.get("api").acquire("k", 1, Duration.ZERO));
	}

	@Test
	void runWhenTokenBucketHasNoCapacityShouldDefaultItToRefillTokens() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.api.token-bucket.refill-tokens=7")
			.run((context) -> assertThat(
					context.getBean(RateLimiterRegistry.class).get("api").getSettings().tokenBucket().capacity())
				.isEqualTo(7));
	}

	@Test
	void runWhenUserDefinesTickerShouldBuildRegistryWithIt() {
		this.contextRunner.withUserConfiguration(TestTimeConfiguration.class)
			.withPropertyValues("resilience.rate-limiters.api.windows[0].limit=1",
					"resilience.rate-limiters.api.windows[0].period=5s")
			.run((context) -> {
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				assertThat(registry.get("api").tryAcquire("k", 1).isPermitted()).isTrue();
				RateLimitDecision rejected = registry.get("api").tryAcquire("k", 1);
				assertThat(rejected.isPermitted()).isFalse();
				assertThat(rejected.getRetryAfter()).isEqualTo(Duration.ofSeconds(5));
				context.getBean(TestTicker.class).advance(Duration.ofSeconds(5));
				assertThat(registry.get("api").tryAcquire("k", 1).isPermitted()).isTrue();
			});
	}

	@Test
	void runWhenUserDefinesRegistryShouldBackOff() {
		RateLimiterRegistry own = StoreRateLimiterRegistry.builder()
			.limiter("own", RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build())
			.build();
		this.contextRunner.withBean(RateLimiterRegistry.class, () -> own)
			.withPropertyValues("resilience.rate-limiters.configured.windows[0].limit=1",
					"resilience.rate-limiters.configured.windows[0].period=1s")
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimiterRegistry.class);
				assertThat(context.getBean(RateLimiterRegistry.class)).isSameAs(own);
				assertThat(context).hasSingleBean(RateLimitedAdvisor.class);
			});
	}

	@Test
	void runWhenUserDefinesTickerAndSleeperShouldBackOff() {
		this.contextRunner.withUserConfiguration(TestTimeConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(Ticker.class).hasSingleBean(Sleeper.class);
			assertThat(context.getBean(Ticker.class)).isInstanceOf(TestTicker.class);
			assertThat(context.getBean(Sleeper.class)).isInstanceOf(TestSleeper.class);
		});
	}

	@Test
	void runWhenUserDefinesAspectShouldBackOff() {
		this.contextRunner
			.withBean("ownAspect", RateLimitedAdvisor.class,
					() -> new RateLimitedAdvisor(() -> new RateLimitedMethods(StoreRateLimiterRegistry.builder().build(), null), 7))
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitedAdvisor.class);
				assertThat(context.getBean(RateLimitedAdvisor.class).getOrder()).isEqualTo(7);
				assertThat(context).hasBean("ownAspect");
			});
	}

	@Test
	void runWhenUserDefinesMethodsShouldBackOff() {
		RateLimitedMethods own = new RateLimitedMethods(StoreRateLimiterRegistry.builder().build(), null);
		this.contextRunner.withBean(RateLimitedMethods.class, () -> own).run((context) -> {
			assertThat(context).hasSingleBean(RateLimitedMethods.class).hasSingleBean(RateLimitedAdvisor.class);
			assertThat(context.getBean(RateLimitedMethods.class)).isSameAs(own);
		});
	}

	@Test
	void runWhenAspectJIsAbsentShouldStillLimitCalls() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.aspectj"))
			.withBean(OnceClient.class)
			.withPropertyValues("resilience.rate-limiters.once.windows[0].limit=1",
					"resilience.rate-limiters.once.windows[0].period=1h")
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitedAdvisor.class);
				OnceClient client = context.getBean(OnceClient.class);
				client.call();
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::call);
			});
	}

	@Test
	void runWhenAListenerNeedsARateLimitedBeanShouldStart() {
		this.contextRunner.withBean(OnceClient.class)
			.withBean(AuditingListener.class)
			.withPropertyValues("resilience.rate-limiters.once.windows[0].limit=1",
					"resilience.rate-limiters.once.windows[0].period=1h")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				context.getBean(OnceClient.class).call();
				assertThat(context.getBean(AuditingListener.class).decisions).isEqualTo(1);
			});
	}

	@Test
	void runWhenSpringAopAutoConfigurationIsOffShouldProxyClassesAsBootDoes() {
		this.contextRunner.withBean(OnceService.class)
			.withPropertyValues("spring.aop.auto=false", "resilience.rate-limiters.once.windows[0].limit=1",
					"resilience.rate-limiters.once.windows[0].period=1h")
			.run((context) -> {
				assertThat(AopUtils.isCglibProxy(context.getBean(OnceService.class))).isTrue();
				context.getBean(OnceService.class).call();
				assertThatExceptionOfType(RateLimitExceededException.class)
					.isThrownBy(() -> context.getBean(OnceService.class).call());
			});
	}

	@Test
	void runWhenSpringAopAutoConfigurationIsOffShouldStillLimitCalls() {
		this.contextRunner.withBean(OnceClient.class)
			.withPropertyValues("spring.aop.auto=false", "resilience.rate-limiters.once.windows[0].limit=1",
					"resilience.rate-limiters.once.windows[0].period=1h")
			.run((context) -> {
				OnceClient client = context.getBean(OnceClient.class);
				client.call();
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::call);
			});
	}

	@Test
	void runShouldOrderAspectJustInsideTheOuterResilienceAspects() {
		this.contextRunner.run((context) -> assertThat(context.getBean(RateLimitedAdvisor.class).getOrder())
			.isEqualTo(Ordered.LOWEST_PRECEDENCE - 2));
	}

	@Test
	void runWithSystemClockShouldReallyWaitForAReservedSlot() {
		// The one test on real time: the default ticker and sleeper are wired and really block.
		this.contextRunner.withBean(PatientClient.class)
			.withPropertyValues("resilience.rate-limiters.real.windows[0].limit=1",
					"resilience.rate-limiters.real.windows[0].period=200ms")
			.run((context) -> {
				PatientClient client = context.getBean(PatientClient.class);
				long start = System.nanoTime();
				client.call();
				client.call();
				Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
				assertThat(elapsed).isGreaterThanOrEqualTo(Duration.ofMillis(200)).isLessThan(Duration.ofSeconds(2));
			});
	}

	@Test
	void runWhenAspectOrderIsSetShouldPassItToAspect() {
		this.contextRunner.withPropertyValues("resilience.aspect-order.rate-limit=-5")
			.run((context) -> assertThat(context.getBean(RateLimitedAdvisor.class).getOrder()).isEqualTo(-5));
	}

	@Test
	void runWhenAStoreRegistrationHasTypeMemoryShouldMakeTheStoresOfMemoryLimiters() {
		// The registration's factory, asked for limiter x's store, stops startup naming x.
		this.contextRunner.withPropertyValues("resilience.rate-limiters.x.max-concurrent=1")
			.withBean(RateLimitStoreRegistration.class, () -> new RateLimitStoreRegistration("memory",
					(name, settings, ticker) -> {
						throw new IllegalStateException("the registration made the store of " + name);
					}))
			.run((context) -> assertThat(Failures.messages(context.getStartupFailure()))
				.contains("the registration made the store of x"));
	}

	@Test
	void runWhenAStoreRegistrationHasAnotherTypeTheStorePropertyShouldStillRefuseIt() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.x.max-concurrent=1", "resilience.rate-limiters.x.store=disk")
			.withBean(RateLimitStoreRegistration.class, () -> new RateLimitStoreRegistration("disk",
					(name, settings, ticker) -> {
						throw new IllegalStateException("the registration made the store of " + name);
					}))
			.run((context) -> assertThat(Failures.messages(context.getStartupFailure()))
				.contains("Failed to bind properties under 'resilience.rate-limiters.x.store' to "
						+ RateLimiterProperties.Store.class.getName()));
	}

	public interface Callable {

		void call();

	}

	public static class OnceService implements Callable {

		@Override
		@RateLimited("once")
		public void call() {
		}

	}

	public static class AuditingListener implements RateLimitListener {

		private final OnceClient client;

		private int decisions;

		public AuditingListener(OnceClient client) {
			this.client = client;
		}

		@Override
		public void onDecision(RateLimiter limiter, RateLimitDecision decision) {
			this.decisions++;
		}

	}

	public static class OnceClient {

		@RateLimited("once")
		public void call() {
		}

	}

	public static class PatientClient {

		@RateLimited(name = "real", maxWait = "1s")
		public void call() {
		}

	}

}
