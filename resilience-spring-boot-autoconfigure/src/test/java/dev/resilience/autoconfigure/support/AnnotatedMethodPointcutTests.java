package dev.resilience.autoconfigure.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import org.junit.jupiter.api.Test;

import org.springframework.aop.ClassFilter;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link AnnotatedMethodPointcut}: which classes may have annotated methods, and which
 * methods are matched.
 */
class AnnotatedMethodPointcutTests {

	private final AnnotatedMethodPointcut pointcut = new AnnotatedMethodPointcut(Marked.class);

	private final ClassFilter classFilter = this.pointcut.getClassFilter();

	@Test
	void classFilterShouldAcceptClassesWhoseHierarchyCarriesTheAnnotation() {
		assertThat(this.classFilter.matches(MarkedType.class)).isTrue();
		assertThat(this.classFilter.matches(MarkedMethod.class)).isTrue();
		assertThat(this.classFilter.matches(SubclassOfMarkedMethod.class)).isTrue();
		assertThat(this.classFilter.matches(ImplementsMarkedInterfaceMethod.class)).isTrue();
		assertThat(this.classFilter.matches(ImplementsMarkedInterfaceType.class)).isTrue();
		assertThat(this.classFilter.matches(ImplementsExtendingInterface.class)).isTrue();
		assertThat(this.classFilter.matches(PrivateMarkedMethod.class)).isTrue();
	}

	@Test
	void classFilterShouldRejectClassesWithoutTheAnnotation() {
		assertThat(this.classFilter.matches(Plain.class)).isFalse();
		assertThat(this.classFilter.matches(String.class)).isFalse();
		assertThat(this.classFilter.matches(Object.class)).isFalse();
	}

	@Test
	void classFilterShouldAcceptAJdkProxyOfAnAnnotatedInterface() {
		Object proxy = Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { MarkedInterfaceMethod.class },
				(target, method, arguments) -> null);
		assertThat(this.classFilter.matches(proxy.getClass())).isTrue();
		Method call = ReflectionUtils.findMethod(MarkedInterfaceMethod.class, "call");
		assertThat(this.pointcut.matches(call, proxy.getClass())).isTrue();
	}

	@Test
	void matchesShouldFindMethodAnnotationsThroughInterfacesAndOverriddenMethods() {
		assertThat(matches(MarkedMethod.class, "marked")).isTrue();
		assertThat(matches(MarkedMethod.class, "plain")).isFalse();
		assertThat(matches(SubclassOfMarkedMethod.class, "marked")).isTrue();
		assertThat(matches(ImplementsMarkedInterfaceMethod.class, "call")).isTrue();
		assertThat(matches(PrivateMarkedMethod.class, "hidden")).isTrue();
	}

	@Test
	void matchesShouldReachPublicMethodsOfAnAnnotatedTypeButNotObjectMethods() {
		assertThat(matches(MarkedType.class, "first")).isTrue();
		assertThat(matches(MarkedType.class, "inherited")).isTrue();
		assertThat(matches(MarkedType.class, "packagePrivate")).isFalse();
		assertThat(matches(MarkedType.class, "toString")).isFalse();
		assertThat(matches(ImplementsMarkedInterfaceType.class, "call")).isTrue();
	}

	private boolean matches(Class<?> targetClass, String name) {
		Method method = ReflectionUtils.findMethod(targetClass, name);
		assertThat(method).as(name).isNotNull();
		return this.pointcut.matches(method, targetClass);
	}

	@Target({ ElementType.METHOD, ElementType.TYPE })
	@Retention(RetentionPolicy.RUNTIME)
	@Inherited
	@interface Marked {

	}

	public static class Plain {

		public String call() {
			return "";
		}

	}

	public static class UnmarkedBase {

		public String inherited() {
			return "";
		}

	}

	@Marked
	public static class MarkedType extends UnmarkedBase {

		public String first() {
			return "";
		}

		String packagePrivate() {
			return "";
		}

		@Override
		public String toString() {
			return "";
		}

	}

	public static class MarkedMethod {

		@Marked
		public String marked() {
			return "";
		}

		public String plain() {
			return "";
		}

	}

	public static class SubclassOfMarkedMethod extends MarkedMethod {

		@Override
		public String marked() {
			return "";
		}

	}

	public interface MarkedInterfaceMethod {

		@Marked
		String call();

	}

	public static class ImplementsMarkedInterfaceMethod implements MarkedInterfaceMethod {

		@Override
		public String call() {
			return "";
		}

	}

	@Marked
	public interface MarkedInterfaceType {

		String call();

	}

	public static class ImplementsMarkedInterfaceType implements MarkedInterfaceType {

		@Override
		public String call() {
			return "";
		}

	}

	public interface ExtendingInterface extends MarkedInterfaceMethod {

	}

	public static class ImplementsExtendingInterface implements ExtendingInterface {

		@Override
		public String call() {
			return "";
		}

	}

	public static class PrivateMarkedMethod {

		@Marked
		private String hidden() {
			return "";
		}

	}

}
