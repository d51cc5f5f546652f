package dev.resilience.autoconfigure.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.annotation.AnnotatedElementUtils;

import dev.resilience.autoconfigure.Failures;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests the shared annotation plumbing with an annotation of the test's own, {@code @Audited},
 * as a capability plugs into it: its type, a binder that reads one method's annotation into a
 * binding (the audit label) and an interceptor that records each call with it.
 */
class AnnotatedMethodAdvisorTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
		.withUserConfiguration(AuditConfiguration.class);

	@Test
	void runWhenMethodIsAnnotatedShouldRunTheInterceptorWithItsBinding() {
		this.contextRunner.withBean(AuditedService.class).run((context) -> {
			AuditedService service = context.getBean(AuditedService.class);
			assertThat(service.audited()).isEqualTo("audited");
			assertThat(service.plain()).isEqualTo("plain");
			assertThat(context.getBean(AuditLog.class).calls).containsExactly("service:audited");
		});
	}

	@Test
	void runWhenTypeIsAnnotatedShouldReachItsPublicMethodsButNotToString() {
		this.contextRunner.withBean(AuditedType.class).run((context) -> {
			AuditedType service = context.getBean(AuditedType.class);
			service.first();
			service.inherited();
			service.toString();
			assertThat(context.getBean(AuditLog.class).calls).containsExactly("type:first", "type:inherited");
		});
	}

	@Test
	void runWhenBeanHasNoAnnotationShouldNotProxyIt() {
		this.contextRunner.withBean(Plain.class)
			.run((context) -> assertThat(AopUtils.isAopProxy(context.getBean(Plain.class))).isFalse());
	}

	@Test
	void runShouldReadEachMethodOnceAndLookUpTheMethodsOnceOnTheFirstCall() {
		this.contextRunner.withBean(AuditedService.class).run((context) -> {
			AuditLog log = context.getBean(AuditLog.class);
			// Read at startup, before any call.
			assertThat(log.bindings).containsExactly("AuditedService.audited()");
			assertThat(log.lookups).hasValue(0);
			for (int i = 0; i < 3; i++) {
				context.getBean(AuditedService.class).audited();
			}
			assertThat(log.bindings).containsExactly("AuditedService.audited()");
			assertThat(log.lookups).hasValue(1);
		});
	}

	@Test
	void runWhenAnnotatedMethodIsFinalShouldFailNamingTheAnnotationAndMethod() {
		this.contextRunner.withBean(FinalService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("@Audited on FinalService.audited() would have no effect"
						+ ": Spring AOP cannot intercept a private, static or final method");
		});
	}

	@Test
	void runWhenBinderRejectsAnAnnotationShouldFailNamingTheMethod() {
		this.contextRunner.withBean(BadService.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure())).contains("@Audited on BadService.audited() is bad");
		});
	}

	@Test
	void runWhenAProxyMadeElsewhereHasAnAnnotatedInterfaceShouldInterceptIt() {
		this.contextRunner.withBean(AuditedApi.class, () -> proxy(AuditedApi.class)).run((context) -> {
			assertThat(context.getBean(AuditedApi.class).get()).isEqualTo("proxied");
			assertThat(context.getBean(AuditLog.class).calls).containsExactly("api:get");
		});
	}

	@Test
	void runWhenAProxyMadeElsewhereHasABadAnnotationShouldFailAtStartup() {
		this.contextRunner.withBean(BadApi.class, () -> proxy(BadApi.class)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure())).contains("@Audited on BadApi.get() is bad");
		});
	}

	private static <T> T proxy(Class<T> api) {
		return api.cast(Proxy.newProxyInstance(api.getClassLoader(), new Class<?>[] { api },
				(proxy, method, arguments) -> "proxied"));
	}

	@Target({ ElementType.METHOD, ElementType.TYPE })
	@Retention(RetentionPolicy.RUNTIME)
	@Inherited
	@interface Audited {

		String value();

	}

	/** What the capability saw: bindings read, method lookups and intercepted calls. */
	static class AuditLog {

		final List<String> bindings = new CopyOnWriteArrayList<>();

		final AtomicInteger lookups = new AtomicInteger();

		final List<String> calls = new CopyOnWriteArrayList<>();

	}

	@Configuration(proxyBeanMethods = false)
	static class AuditConfiguration {

		@Bean
		static AuditLog auditLog() {
			return new AuditLog();
		}

		@Bean
		static AnnotatedMethods<String> auditedMethods(AuditLog log, ConfigurableListableBeanFactory beanFactory) {
			return new AnnotatedMethods<>(Audited.class, (method, targetClass, kind, proposed) -> bind(log, method, targetClass),
					beanFactory);
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static AnnotatedMethodAdvisor<String> auditedAdvisor(AuditLog log, ObjectProvider<AnnotatedMethods<String>> methods) {
			return new AnnotatedMethodAdvisor<>(Audited.class, () -> {
				log.lookups.incrementAndGet();
				return methods.getObject();
			}, new AuditingInterceptor(log), 0);
		}

		/** Logs each call; the asynchronous forms are tested in AsyncAdviceTests. */
		static final class AuditingInterceptor implements BindingInterceptor<String> {

			private final AuditLog log;

			AuditingInterceptor(AuditLog log) {
				this.log = log;
			}

			@Override
			public @Nullable Object invoke(MethodInvocation invocation, String label) throws Throwable {
				this.log.calls.add(label + ":" + invocation.getMethod().getName());
				return invocation.proceed();
			}

			@Override
			public CompletableFuture<@Nullable Object> invokeAsync(AsyncInvocation invocation, String label) {
				throw new UnsupportedOperationException("blocking methods only");
			}

			@Override
			public Object invokeFlux(AsyncInvocation invocation, String label) {
				throw new UnsupportedOperationException("blocking methods only");
			}

		}

		private static String bind(AuditLog log, Method method, Class<?> targetClass) {
			String where = "@Audited on " + AnnotationAttributeResolver.describe(method);
			log.bindings.add(AnnotationAttributeResolver.describe(method));
			Audited audited = AnnotatedElementUtils.findMergedAnnotation(method, Audited.class);
			if (audited == null && AnnotatedMethodPointcut.reachedByTypeLevel(method)) {
				audited = AnnotatedElementUtils.findMergedAnnotation(targetClass, Audited.class);
			}
			if (audited.value().equals("bad")) {
				throw new IllegalStateException(where + " is bad");
			}
			return audited.value();
		}

	}

	public static class Plain {

		public String call() {
			return "plain";
		}

	}

	public static class AuditedService {

		@Audited("service")
		public String audited() {
			return "audited";
		}

		public String plain() {
			return "plain";
		}

	}

	public static class Base {

		public String inherited() {
			return "inherited";
		}

	}

	@Audited("type")
	public static class AuditedType extends Base {

		public String first() {
			return "first";
		}

		@Override
		public String toString() {
			return "type";
		}

	}

	public static class FinalService {

		@Audited("final")
		public final String audited() {
			return "audited";
		}

	}

	public static class BadService {

		@Audited("bad")
		public String audited() {
			return "audited";
		}

	}

	public interface AuditedApi {

		@Audited("api")
		String get();

	}

	public interface BadApi {

		@Audited("bad")
		String get();

	}

}
