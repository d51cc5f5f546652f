package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestSleeper;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link RateLimitedAdvisor}, through real proxied beans and a manual clock.
 */
class RateLimitedAdvisorTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class, AopAutoConfiguration.class,
				ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class, ServiceConfiguration.class)
		.withPropertyValues("resilience.rate-limiters.partner-api.windows[0].limit=2",
				"resilience.rate-limiters.partner-api.windows[0].period=5s",
				"resilience.rate-limiters.per-user.windows[0].limit=5",
				"resilience.rate-limiters.per-user.windows[0].period=5s",
				"resilience.rate-limiters.global.windows[0].limit=1", "resilience.rate-limiters.global.windows[0].period=5s",
				"resilience.rate-limiters.typed.windows[0].limit=1", "resilience.rate-limiters.typed.windows[0].period=5s",
				"resilience.rate-limiters.pool.max-concurrent=1", "test.partner.max-wait=10s");

	@Test
	void runShouldProxyAnnotatedBeans() {
		this.contextRunner.run((context) -> {
			assertThat(AopUtils.isAopProxy(context.getBean(PartnerClient.class))).isTrue();
			assertThat(AopUtils.isAopProxy(context.getBean(TypedClient.class))).isTrue();
		});
	}

	@Test
	void callBeyondLimitShouldBeRejectedWithExactRetryAfter() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThat(client.shared()).isEqualTo("shared");
			assertThat(client.shared()).isEqualTo("shared");
			context.getBean(TestTicker.class).advance(Duration.ofMillis(1500));
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::shared).satisfies((ex) -> {
				assertThat(ex.getLimiterName()).isEqualTo("partner-api");
				assertThat(ex.getKey()).isEmpty();
				assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofMillis(3500));
				assertThat(ex.getDecision().isPermitted()).isFalse();
				assertThat(ex.getDecision().getRemaining()).isZero();
			});
			assertThat(client.calls()).isEqualTo(2);
			context.getBean(TestTicker.class).advance(Duration.ofMillis(3499));
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::shared)
				.satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofMillis(1)));
			context.getBean(TestTicker.class).advance(Duration.ofMillis(1));
			assertThat(client.shared()).isEqualTo("shared");
			assertThat(client.calls()).isEqualTo(3);
		});
	}

	@Test
	void keyByParameterNameShouldGiveEachValueItsOwnBucket() {
		this.contextRunner.run((context) -> assertSeparateBuckets(context, context.getBean(PartnerClient.class)::byName));
	}

	@Test
	void keyByP0ShouldGiveEachValueItsOwnBucket() {
		this.contextRunner.run((context) -> assertSeparateBuckets(context, context.getBean(PartnerClient.class)::byP0));
	}

	@Test
	void keyByA0ShouldGiveEachValueItsOwnBucket() {
		this.contextRunner.run((context) -> assertSeparateBuckets(context, context.getBean(PartnerClient.class)::byA0));
	}

	private void assertSeparateBuckets(AssertableApplicationContext context, Function<String, String> call) {
		assertThat(call.apply("alice")).isEqualTo("alice");
		assertThat(call.apply("alice")).isEqualTo("alice");
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> call.apply("alice"))
			.satisfies((ex) -> {
				assertThat(ex.getLimiterName()).isEqualTo("partner-api");
				assertThat(ex.getKey()).isEqualTo("alice");
			});
		assertThat(call.apply("bob")).isEqualTo("bob");
		RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
		assertThat(registry.get("partner-api").inspect("alice").getRemaining()).isZero();
		assertThat(registry.get("partner-api").inspect("bob").getRemaining()).isEqualTo(1);
		assertThat(registry.get("partner-api").inspect("").getRemaining()).isEqualTo(2);
	}

	@Test
	void keyOfManyValuesShouldKeepBucketsApartAfterTheExpressionIsCompiled() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			for (int i = 0; i < 300; i++) {
				assertThat(client.byName("customer-" + i)).isEqualTo("customer-" + i);
			}
			assertThat(client.byName("customer-299")).isEqualTo("customer-299");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> client.byName("customer-299"))
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("customer-299"));
		});
	}

	@Test
	void keyByBeanReferenceShouldGiveEachValueItsOwnBucket() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			Tenant tenant = context.getBean(Tenant.class);
			tenant.id = "acme";
			client.byTenant();
			client.byTenant();
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::byTenant)
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("acme"));
			tenant.id = "globex";
			assertThat(client.byTenant()).isEqualTo("tenant call");
			assertThat(context.getBean(RateLimiterRegistry.class).get("partner-api").inspect("globex").getRemaining())
				.isEqualTo(1);
		});
	}

	@Test
	void keyEvaluatingToNullShouldFailNamingMethodAndExpression() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThatIllegalArgumentException().isThrownBy(() -> client.byName(null))
				.withMessage("The key expression '#customerId' of @RateLimited on PartnerClient.byName(String)"
						+ " evaluated to null; a null key would silently share one bucket");
			assertThat(client.calls()).isZero();
			assertThat(context.getBean(RateLimiterRegistry.class).get("partner-api").inspect("").getRemaining())
				.isEqualTo(2);
		});
	}

	@Test
	void keyEvaluatingToAnEmptyStringShouldFailNamingMethodAndExpression() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			Tenant tenant = context.getBean(Tenant.class);
			tenant.id = "";
			assertThatIllegalArgumentException().isThrownBy(client::byTenant)
				.withMessage("The key expression '@tenant.id()' of @RateLimited on PartnerClient.byTenant()"
						+ " evaluated to an empty string; an empty key would silently share one bucket");
			assertThatIllegalArgumentException().isThrownBy(() -> client.byName(""))
				.withMessage("The key expression '#customerId' of @RateLimited on PartnerClient.byName(String)"
						+ " evaluated to an empty string; an empty key would silently share one bucket");
			assertThat(client.calls()).isZero();
			assertThat(context.getBean(RateLimiterRegistry.class).get("partner-api").inspect("").getRemaining())
				.isEqualTo(2);
		});
	}

	@Test
	void repeatedAnnotationsShouldAllAdmitAndRejectionShouldLeaveEarlierLimitersUnchanged() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
			assertThat(client.perUserAndGlobal("alice")).isEqualTo("alice");
			assertThat(registry.get("per-user").inspect("alice").getRemaining()).isEqualTo(4);
			assertThat(registry.get("global").inspect("").getRemaining()).isZero();
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> client.perUserAndGlobal("alice"))
				.satisfies((ex) -> {
					assertThat(ex.getLimiterName()).isEqualTo("global");
					assertThat(ex.getKey()).isEmpty();
				});
			assertThat(registry.get("per-user").inspect("alice").getRemaining()).isEqualTo(4);
			assertThat(client.calls()).isEqualTo(1);
		});
	}

	@Test
	void typeLevelAnnotationShouldLimitEveryPublicMethod() {
		this.contextRunner.run((context) -> {
			TypedClient client = context.getBean(TypedClient.class);
			assertThat(client.first()).isEqualTo("first");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::second)
				.satisfies((ex) -> assertThat(ex.getLimiterName()).isEqualTo("typed"));
			assertThat(client.notPublic()).isEqualTo("not public");
			assertThat(client.notPublic()).isEqualTo("not public");
		});
	}

	@Test
	void typeLevelAnnotationShouldBeInheritedBySubclasses() {
		this.contextRunner.withBean(InheritingClient.class).run((context) -> {
			InheritingClient client = context.getBean(InheritingClient.class);
			assertThat(client.third()).isEqualTo("third");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::first)
				.satisfies((ex) -> assertThat(ex.getLimiterName()).isEqualTo("typed"));
		});
	}

	@Test
	void typeLevelAnnotationShouldReachPublicMethodsInheritedFromAnUnannotatedSuperclass() {
		this.contextRunner.withBean(AnnotatedSubclass.class).run((context) -> {
			assertThat(context).hasNotFailed();
			AnnotatedSubclass client = context.getBean(AnnotatedSubclass.class);
			assertThat(client.inherited()).isEqualTo("inherited");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::inherited)
				.satisfies((ex) -> assertThat(ex.getLimiterName()).isEqualTo("typed"));
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::own);
			for (int i = 0; i < 3; i++) {
				assertThat(client.toString()).isEqualTo("annotated subclass");
			}
		});
	}

	@Test
	void maxWaitFromPlaceholderShouldWaitTheExactDelayInsteadOfRejecting() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			TestTicker ticker = context.getBean(TestTicker.class);
			long start = ticker.read();
			client.shared();
			client.shared();
			ticker.advance(Duration.ofMillis(1500));
			assertThat(client.patient()).isEqualTo("patient");
			assertThat(context.getBean(TestSleeper.class).getSleeps()).containsExactly(Duration.ofMillis(3500));
			assertThat(ticker.read() - start).isEqualTo(Duration.ofSeconds(5).toNanos());
			// The waited call took the slot it reserved: the window holds it and the next one.
			assertThat(client.shared()).isEqualTo("shared");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::shared);
		});
	}

	@Test
	void maxWaitShorterThanTheDelayShouldRejectAtOnce() {
		this.contextRunner.withPropertyValues("test.partner.max-wait=3s").run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			client.shared();
			client.shared();
			context.getBean(TestTicker.class).advance(Duration.ofMillis(1500));
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::patient)
				.satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofMillis(3500)));
			assertThat(context.getBean(TestSleeper.class).getSleeps()).isEmpty();
		});
	}

	@Test
	void concurrencyPermitShouldBeReturnedWhenTheMethodThrows() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
			AtomicInteger inFlightDuringCall = new AtomicInteger(-1);
			Supplier<String> failing = () -> {
				inFlightDuringCall.set(registry.get("pool").inspect("").getInFlight());
				throw new IllegalStateException("boom");
			};
			assertThatIllegalStateException().isThrownBy(() -> client.pooled(failing)).withMessage("boom");
			assertThat(inFlightDuringCall.get()).isEqualTo(1);
			assertThat(registry.get("pool").inspect("").getInFlight()).isZero();
			// With the permit back, the next call runs instead of being rejected.
			assertThat(client.pooled(() -> "ok")).isEqualTo("ok");
			assertThat(registry.get("pool").inspect("").getInFlight()).isZero();
		});
	}

	@Test
	void concurrencyPermitHeldByARunningCallShouldRejectANestedCall() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> client.pooled(() -> client.pooled(() -> "inner")))
				.satisfies((ex) -> {
					assertThat(ex.getLimiterName()).isEqualTo("pool");
					assertThat(ex.getDecision().getInFlight()).isEqualTo(1);
					assertThat(ex.getDecision().getMaxConcurrent()).isEqualTo(1);
					assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofMillis(1));
				});
			assertThat(context.getBean(RateLimiterRegistry.class).get("pool").inspect("").getInFlight()).isZero();
		});
	}

	@Test
	void aspectOrderPropertyShouldReachTheAspect() {
		this.contextRunner.withPropertyValues("resilience.aspect-order.rate-limit=123")
			.run((context) -> assertThat(context.getBean(RateLimitedAdvisor.class).getOrder()).isEqualTo(123));
	}

	@Test
	void aspectWithLowerOrderShouldRunOutsideTheRateLimitAspect() {
		this.contextRunner.withUserConfiguration(RecordingAspect.class).run((context) -> {
			context.getBean(PartnerClient.class).shared();
			// The recording aspect (order 0) ran before the limiter took its slot.
			assertThat(context.getBean(RecordingAspect.class).remainingSeen).containsExactly(2L);
		});
	}

	@Test
	void aspectOrderPropertyShouldMoveTheRateLimitAspectOutside() {
		this.contextRunner.withUserConfiguration(RecordingAspect.class)
			.withPropertyValues("resilience.aspect-order.rate-limit=-10")
			.run((context) -> {
				context.getBean(PartnerClient.class).shared();
				assertThat(context.getBean(RecordingAspect.class).remainingSeen).containsExactly(1L);
			});
	}

	@Test
	void jdkProxiedBeanShouldBeLimited() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false").run((context) -> {
			PartnerApi api = context.getBean(PartnerApi.class);
			assertThat(AopUtils.isJdkDynamicProxy(api)).isTrue();
			api.fetch("alice");
			api.fetch("alice");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> api.fetch("alice"))
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("alice"));
			assertThat(api.fetch("bob")).isEqualTo("bob");
		});
	}

	@Aspect
	@Order(0)
	static class RecordingAspect {

		final List<Long> remainingSeen = new CopyOnWriteArrayList<>();

		private final RateLimiterRegistry registry;

		RecordingAspect(RateLimiterRegistry registry) {
			this.registry = registry;
		}

		@Around("execution(* dev.resilience.autoconfigure.ratelimit.RateLimitedAdvisorTests.PartnerClient.shared())")
		Object record(ProceedingJoinPoint call) throws Throwable {
			this.remainingSeen.add(this.registry.get("partner-api").inspect("").getRemaining());
			return call.proceed();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		PartnerClient partnerClient() {
			return new PartnerClient();
		}

		@Bean
		TypedClient typedClient() {
			return new TypedClient();
		}

		@Bean
		Tenant tenant() {
			return new Tenant();
		}

		@Bean
		PartnerApi partnerApi() {
			return new PartnerApiClient();
		}

	}

	public static class Tenant {

		volatile String id = "none";

		public String id() {
			return this.id;
		}

	}

	public static class PartnerClient {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@RateLimited("partner-api")
		public String shared() {
			this.calls.incrementAndGet();
			return "shared";
		}

		@RateLimited(name = "partner-api", maxWait = "${test.partner.max-wait}")
		public String patient() {
			this.calls.incrementAndGet();
			return "patient";
		}

		@RateLimited(name = "partner-api", key = "#customerId")
		public String byName(String customerId) {
			this.calls.incrementAndGet();
			return customerId;
		}

		@RateLimited(name = "partner-api", key = "#p0")
		public String byP0(String customerId) {
			this.calls.incrementAndGet();
			return customerId;
		}

		@RateLimited(name = "partner-api", key = "#a0")
		public String byA0(String customerId) {
			this.calls.incrementAndGet();
			return customerId;
		}

		@RateLimited(name = "partner-api", key = "@tenant.id()")
		public String byTenant() {
			this.calls.incrementAndGet();
			return "tenant call";
		}

		@RateLimited(name = "per-user", key = "#user")
		@RateLimited("global")
		public String perUserAndGlobal(String user) {
			this.calls.incrementAndGet();
			return user;
		}

		@RateLimited("pool")
		public String pooled(Supplier<String> body) {
			return body.get();
		}

	}

	@RateLimited("typed")
	public static class TypedClient {

		public String first() {
			return "first";
		}

		public String second() {
			return "second";
		}

		String notPublic() {
			return "not public";
		}

	}

	public static class UnannotatedBase {

		public String inherited() {
			return "inherited";
		}

	}

	@RateLimited("typed")
	public static class AnnotatedSubclass extends UnannotatedBase {

		public String own() {
			return "own";
		}

		@Override
		public String toString() {
			return "annotated subclass";
		}

	}

	public static class InheritingClient extends TypedClient {

		public String third() {
			return "third";
		}

	}

	public interface PartnerApi {

		String fetch(String customerId);

	}

	public static class PartnerApiClient implements PartnerApi {

		@Override
		@RateLimited(name = "partner-api", key = "#customerId")
		public String fetch(String customerId) {
			return customerId;
		}

	}

}
