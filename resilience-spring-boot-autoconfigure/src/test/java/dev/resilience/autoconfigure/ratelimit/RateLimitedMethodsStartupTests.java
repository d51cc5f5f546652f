package dev.resilience.autoconfigure.ratelimit;

import java.lang.reflect.Proxy;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that mistakes in {@link RateLimited @RateLimited} annotations stop startup with a message
 * naming the method.
 */
class RateLimitedMethodsStartupTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class, AopAutoConfiguration.class,
				ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class))
		.withPropertyValues("resilience.rate-limiters.partner-api.windows[0].limit=5",
				"resilience.rate-limiters.partner-api.windows[0].period=5s",
				"resilience.rate-limiters.partner-api.windows[1].limit=3",
				"resilience.rate-limiters.partner-api.windows[1].period=1s",
				"resilience.rate-limiters.global.token-bucket.capacity=10",
				"resilience.rate-limiters.global.token-bucket.refill-tokens=1");

	@Test
	void runWhenAnnotationsAreValidShouldStart() {
		this.contextRunner.withBean(ValidClient.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void runWhenLimiterIsUnknownShouldFailListingConfiguredNames() {
		this.contextRunner.withBean(UnknownLimiterClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("@RateLimited on UnknownLimiterClient.fetch(String) names the rate limiter 'partner'"
						+ ", which is not configured; configured under resilience.rate-limiters are [partner-api, global]");
		});
	}

	@Test
	void runWhenLimiterIsUnknownOnTypeShouldFailNamingAPublicMethod() {
		this.contextRunner.withBean(UnknownLimiterOnTypeClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("@RateLimited on UnknownLimiterOnTypeClient.fetch() names the rate limiter 'nope'"
						+ ", which is not configured; configured under resilience.rate-limiters are [partner-api, global]");
		});
	}

	@Test
	void runWhenCostExceedsEveryConstraintShouldFailNamingTheMethod() {
		this.contextRunner.withBean(CostlyClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("@RateLimited on CostlyClient.fetch(): cost 4 is invalid for rate limiter 'partner-api'"
						+ ": cost 4 exceeds 3, the most any constraint of this limiter admits, so the call could never be admitted");
		});
	}

	@Test
	void runWhenCostIsZeroShouldFailNamingTheMethod() {
		this.contextRunner.withBean(FreeClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("@RateLimited on FreeClient.fetch(): cost 0 is invalid for rate limiter 'global'"
						+ ": cost must be positive but was 0");
		});
	}

	@Test
	void runWhenKeyDoesNotParseShouldFailNamingTheMethodAndExpression() {
		this.contextRunner.withBean(BadKeyClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.anySatisfy((message) -> assertThat(message).startsWith(
						"The SpEL expression '#customerId +' of @RateLimited on BadKeyClient.fetch(String) (key) does not parse: "));
		});
	}

	@Test
	void runWhenMaxWaitIsNotADurationShouldFailNamingTheMethod() {
		this.contextRunner.withBean(BadWaitClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("'abc' of @RateLimited on BadWaitClient.fetch() (maxWait) is not a duration"
						+ "; use a form such as 250ms, 5s, 1m or PT5S");
		});
	}

	@Test
	void runWhenMaxWaitPlaceholderResolvesToNonDurationShouldFailNamingTheMethod() {
		this.contextRunner.withBean(PlaceholderWaitClient.class)
			.withPropertyValues("test.partner.max-wait=soon")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("'soon' of @RateLimited on PlaceholderWaitClient.fetch() (maxWait) is not a duration"
							+ "; use a form such as 250ms, 5s, 1m or PT5S");
			});
	}

	@Test
	void runWhenMaxWaitPlaceholderIsMissingShouldFailNamingTheMethod() {
		this.contextRunner.withBean(PlaceholderWaitClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.anySatisfy((message) -> assertThat(message).startsWith(
						"Cannot resolve '${test.partner.max-wait}' of @RateLimited on PlaceholderWaitClient.fetch() (maxWait): "));
		});
	}

	@Test
	void runWhenMaxWaitIsNegativeShouldFailNamingTheMethod() {
		this.contextRunner.withBean(NegativeWaitClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("'-1s' of @RateLimited on NegativeWaitClient.fetch() (maxWait) must not be negative");
		});
	}

	@Test
	void runWhenAnnotatedMethodIsFinalShouldFailNamingTheMethod() {
		this.contextRunner.withBean(FinalMethodClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("@RateLimited on FinalMethodClient.fetch() would have no effect"
						+ ": Spring AOP cannot intercept a private, static or final method");
		});
	}

	@Test
	void runWhenAnnotatedMethodIsPrivateShouldFailNamingTheMethod() {
		this.contextRunner.withBean(PrivateMethodClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("@RateLimited on PrivateMethodClient.fetch() would have no effect"
						+ ": Spring AOP cannot intercept a private, static or final method");
		});
	}

	@Test
	void runWhenAnnotationNamesNoLimiterShouldFailNamingTheMethod() {
		this.contextRunner.withBean(NamelessClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("@RateLimited on NamelessClient.fetch() names no rate limiter; set name (or value)");
		});
	}

	@Test
	void runWhenBeanIsProxiedThroughItsInterfaceShouldStillFailAtStartup() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(PartnerApi.class, UnknownLimiterApiClient::new)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("@RateLimited on UnknownLimiterApiClient.fetch(String) names the rate limiter 'partner'"
							+ ", which is not configured; configured under resilience.rate-limiters are [partner-api, global]");
			});
	}

	@Test
	void runWhenAnnotationIsOnAnInterfaceMethodShouldLimitTheImplementation() {
		this.contextRunner.withBean(InterfaceAnnotatedClient.class)
			.run((context) -> assertFiveSecondWindowUsedOnce(context, () -> context.getBean(AnnotatedApi.class).fetch("a")));
	}

	@Test
	void runWhenAnnotationIsOnAnOverriddenMethodShouldLimitTheOverride() {
		this.contextRunner.withBean(OverridingClient.class).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(OverridingClient.class).fetch("a");
			RateLimitDecision state = context.getBean(RateLimiterRegistry.class).get("partner-api").inspect("a");
			// ValidClient.fetch's annotation: key #customerId, cost 3.
			assertThat(state.getQuotas().get(0).remaining()).isEqualTo(2);
		});
	}

	@Test
	void runWhenAnnotationIsOnAnInterfaceTypeShouldLimitItsMethods() {
		this.contextRunner.withBean(TypeAnnotatedInterfaceClient.class)
			.run((context) -> assertFiveSecondWindowUsedOnce(context, () -> context.getBean(TypeAnnotatedApi.class).fetch()));
	}

	private static void assertFiveSecondWindowUsedOnce(AssertableApplicationContext context, Runnable call) {
		assertThat(context).hasNotFailed();
		call.run();
		RateLimitDecision state = context.getBean(RateLimiterRegistry.class).get("partner-api").inspect("");
		assertThat(state.getQuotas().get(0).remaining()).isEqualTo(4);
	}

	@Test
	void runWhenAMethodNamesTheSameLimiterAndKeyTwiceShouldFailNamingTheMethod() {
		this.contextRunner.withBean(TwiceClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("@RateLimited on TwiceClient.fetch(String) names the rate limiter 'partner-api' twice with"
						+ " the same key '#id'; a call would count twice against it");
		});
	}

	@Test
	void runWhenAMethodCarriesTheSameAnnotationTwiceShouldFailNamingTheMethod() {
		// Spring's merged view of repeated annotations is a set: identical ones were held once,
		// so the second was silently ignored instead of failing as above.
		this.contextRunner.withBean(VerbatimTwiceClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("@RateLimited on VerbatimTwiceClient.fetch(String) names the rate limiter 'partner-api' twice"
						+ " with the same key '#id'; a call would count twice against it");
		});
	}

	@Test
	void runWhenATypeCarriesTheSameAnnotationTwiceShouldFailNamingAPublicMethod() {
		this.contextRunner.withBean(VerbatimTwiceTypeClient.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("@RateLimited on VerbatimTwiceTypeClient.fetch() names the rate limiter 'global' twice"
						+ " with the same key; a call would count twice against it");
		});
	}

	@Test
	void runWhenMethodNamesTheLimiterOfItsTypeShouldReplaceTheTypesAnnotation() {
		this.contextRunner.withBean(RefinedClient.class).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(RefinedClient.class).fetch();
			RateLimitDecision state = context.getBean(RateLimiterRegistry.class).get("partner-api").inspect("");
			// Counted once, at the method's cost of 2, not once more at the type's cost of 1.
			assertThat(state.getQuotas().get(0).remaining()).isEqualTo(3);
		});
	}

	@Test
	void runWhenAnInterfaceOfAProxyMadeElsewhereIsAnnotatedShouldLimitIt() {
		this.contextRunner.withUserConfiguration(HttpInterfaceConfiguration.class)
			.run((context) -> assertFiveSecondWindowUsedOnce(context, () -> context.getBean(HttpApi.class).get("a")));
	}

	@Test
	void runWhenAnnotationIsOnASuperclassShouldStart() {
		this.contextRunner.withBean(AnnotatedSuperclassClient.class).run((context) -> assertThat(context).hasNotFailed());
	}

	public static class TwiceClient {

		@RateLimited(name = "partner-api", key = "#id")
		@RateLimited(name = "partner-api", key = "#id", cost = 2)
		public String fetch(String id) {
			return id;
		}

	}

	@RateLimited("partner-api")
	public static class VerbatimTwiceClient {

		@RateLimited(name = "partner-api", key = "#id")
		@RateLimited(name = "partner-api", key = "#id")
		public String fetch(String id) {
			return id;
		}

	}

	@RateLimited("global")
	@RateLimited("global")
	public static class VerbatimTwiceTypeClient {

		public String fetch() {
			return "";
		}

	}

	public static class RefinedClient {

		@RateLimited(name = "partner-api", cost = 2)
		public String fetch() {
			return "";
		}

	}

	public interface HttpApi {

		@RateLimited("partner-api")
		String get(String id);

	}

	@Configuration(proxyBeanMethods = false)
	static class HttpInterfaceConfiguration {

		// Stands in for a proxy made by another framework, such as an HTTP interface client.
		@Bean
		HttpApi httpApi() {
			return (HttpApi) Proxy.newProxyInstance(HttpApi.class.getClassLoader(), new Class<?>[] { HttpApi.class },
					(proxy, method, arguments) -> "fetched");
		}

	}

	public interface AnnotatedApi {

		@RateLimited("partner-api")
		String fetch(String customerId);

	}

	public static class InterfaceAnnotatedClient implements AnnotatedApi {

		@Override
		public String fetch(String customerId) {
			return customerId;
		}

	}

	public static class OverridingClient extends ValidClient {

		@Override
		public String fetch(String customerId) {
			return customerId;
		}

	}

	@RateLimited("partner-api")
	public interface TypeAnnotatedApi {

		String fetch();

	}

	public static class TypeAnnotatedInterfaceClient implements TypeAnnotatedApi {

		@Override
		public String fetch() {
			return "";
		}

	}

	@RateLimited("global")
	public static class AnnotatedSuperclass {

	}

	public static class AnnotatedSuperclassClient extends AnnotatedSuperclass {

		public String fetch() {
			return "";
		}

	}

	public static class ValidClient {

		@RateLimited(name = "partner-api", key = "#customerId", cost = 3, maxWait = "250ms")
		@RateLimited("global")
		public String fetch(String customerId) {
			return customerId;
		}

	}

	public static class UnknownLimiterClient {

		@RateLimited(name = "partner")
		public String fetch(String customerId) {
			return customerId;
		}

	}

	@RateLimited("nope")
	public static class UnknownLimiterOnTypeClient {

		public String fetch() {
			return "";
		}

	}

	public static class CostlyClient {

		@RateLimited(name = "partner-api", cost = 4)
		public String fetch() {
			return "";
		}

	}

	public static class FreeClient {

		@RateLimited(name = "global", cost = 0)
		public String fetch() {
			return "";
		}

	}

	public static class BadKeyClient {

		@RateLimited(name = "partner-api", key = "#customerId +")
		public String fetch(String customerId) {
			return customerId;
		}

	}

	public static class BadWaitClient {

		@RateLimited(name = "partner-api", maxWait = "abc")
		public String fetch() {
			return "";
		}

	}

	public static class PlaceholderWaitClient {

		@RateLimited(name = "partner-api", maxWait = "${test.partner.max-wait}")
		public String fetch() {
			return "";
		}

	}

	public static class NegativeWaitClient {

		@RateLimited(name = "partner-api", maxWait = "-1s")
		public String fetch() {
			return "";
		}

	}

	public static class FinalMethodClient {

		@RateLimited("partner-api")
		public final String fetch() {
			return "";
		}

	}

	public static class PrivateMethodClient {

		public String call() {
			return fetch();
		}

		@RateLimited("partner-api")
		private String fetch() {
			return "";
		}

	}

	public static class NamelessClient {

		@RateLimited(key = "'x'")
		public String fetch() {
			return "";
		}

	}

	public interface PartnerApi {

		String fetch(String customerId);

	}

	public static class UnknownLimiterApiClient implements PartnerApi {

		@Override
		@RateLimited(name = "partner")
		public String fetch(String customerId) {
			return customerId;
		}

	}

}
