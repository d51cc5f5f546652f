package dev.resilience.pool;

import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

/**
 * Carries the connections that running calls of the pools hold ({@link ConnectionPool#current()})
 * with the rest of a caller's context (Micrometer context-propagation), so that {@code current()}
 * works wherever the call's context is restored: a retry attempt that runs later on a scheduler,
 * a Kotlin {@code suspend} function after it resumed, the work of a pool called from another
 * pool's work. Registered with the global {@link io.micrometer.context.ContextRegistry} through
 * {@link java.util.ServiceLoader}; register it with a registry of your own to carry the
 * connections there. A continuation that outlives its call does not get its connection: the
 * connection went back to the pool when the call ended, and {@code current()} then throws.
 * Its values are opaque.
 */
public final class HeldConnectionAccessor implements ThreadLocalAccessor<Object> {

	/** The key of the held connections in a context. */
	public static final String KEY = "dev.resilience.pool.held-connections";

	/** Creates the accessor. */
	public HeldConnectionAccessor() {
	}

	@Override
	public Object key() {
		return KEY;
	}

	@Override
	public @Nullable Object getValue() {
		return HeldConnections.get();
	}

	@Override
	public void setValue(Object value) {
		HeldConnections.set((HeldConnections) value);
	}

	@Override
	public void setValue() {
		HeldConnections.set(null);
	}

}
