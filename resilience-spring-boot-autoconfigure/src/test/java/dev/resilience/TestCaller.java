package dev.resilience;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A caller's name on a thread, carried by context-propagation as it carries the MDC or the
 * security context: what asynchronous advice and pools must restore on every thread they move a call to.
 * Register an instance with the {@code ContextRegistry} for the tests that use it, or extend a
 * test class with {@link Registered} to have it in the global registry while the class runs.
 */
public final class TestCaller implements ThreadLocalAccessor<String> {

	/** The key the caller travels under, in a Reactor context too. */
	public static final String KEY = "test.caller";

	/** The caller of the current thread. */
	public static final ThreadLocal<@Nullable String> CURRENT = new ThreadLocal<>();

	@Override
	public Object key() {
		return KEY;
	}

	@Override
	public @Nullable String getValue() {
		return CURRENT.get();
	}

	@Override
	public void setValue(String value) {
		CURRENT.set(value);
	}

	@Override
	public void setValue() {
		CURRENT.remove();
	}

	/** Puts a {@link TestCaller} in the global {@code ContextRegistry} for a test class, and takes it out after. */
	public static final class Registered implements BeforeAllCallback, AfterAllCallback {

		@Override
		public void beforeAll(ExtensionContext context) {
			ContextRegistry.getInstance().registerThreadLocalAccessor(new TestCaller());
		}

		@Override
		public void afterAll(ExtensionContext context) {
			ContextRegistry.getInstance().removeThreadLocalAccessor(KEY);
		}

	}

}
