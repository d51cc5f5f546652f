package dev.resilience;

import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

/**
 * A caller's name on a thread, carried by context-propagation as it carries the MDC or the
 * security context: what asynchronous advice and pools must restore on every thread they move a call to.
 * Register an instance with the {@code ContextRegistry} for the tests that use it.
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

}
