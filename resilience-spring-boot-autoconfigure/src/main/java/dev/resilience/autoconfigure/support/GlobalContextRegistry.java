package dev.resilience.autoconfigure.support;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import io.micrometer.context.ContextAccessor;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import io.micrometer.context.integration.Slf4jThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

import dev.resilience.internal.ConnectionsHeld;
import dev.resilience.pool.HeldConnectionAccessor;

/**
 * What the starter carries of a caller's context: the accessors of context-propagation's global
 * {@link ContextRegistry} as they are at each capture, plus the SLF4J MDC, which
 * context-propagation ships an accessor for but does not register. Read through, not copied, so an
 * accessor registered with the global registry after this was made (as the starter's web support
 * registers the request's rate-limit header items when its listener is created) travels too; the
 * global registry itself is left untouched. The pools' held connections are left out until a
 * pool's call has held one: every accessor is captured, set and cleared around each continuation,
 * and that one cost the starter's async calls about a third of their throughput.
 */
public final class GlobalContextRegistry extends ContextRegistry {

	private final ContextRegistry global;

	private final @Nullable ThreadLocalAccessor<?> mdc;

	private final BooleanSupplier connectionsHeld;

	/**
	 * Creates the view of the global registry.
	 * @param classLoader looks for SLF4J
	 */
	public GlobalContextRegistry(@Nullable ClassLoader classLoader) {
		this(classLoader, ConnectionsHeld::ever);
	}

	/**
	 * Creates the view of the global registry.
	 * @param classLoader looks for SLF4J
	 * @param connectionsHeld whether a pool's call has held a connection: until then the pools'
	 * {@link HeldConnectionAccessor} is left out, as there is nothing it could carry or clear
	 */
	GlobalContextRegistry(@Nullable ClassLoader classLoader, BooleanSupplier connectionsHeld) {
		this.global = ContextRegistry.getInstance();
		this.mdc = ClassUtils.isPresent("org.slf4j.MDC", classLoader) ? new Slf4jThreadLocalAccessor() : null;
		this.connectionsHeld = connectionsHeld;
	}

	@Override
	public List<ThreadLocalAccessor<?>> getThreadLocalAccessors() {
		List<ThreadLocalAccessor<?>> accessors = this.global.getThreadLocalAccessors();
		boolean leaveOutHeld = !this.connectionsHeld.getAsBoolean();
		List<ThreadLocalAccessor<?>> carried = new ArrayList<>(accessors.size() + 1);
		boolean mdcThere = false;
		boolean changed = false;
		for (ThreadLocalAccessor<?> accessor : accessors) {
			Object key = accessor.key();
			mdcThere |= Slf4jThreadLocalAccessor.KEY.equals(key);
			if (leaveOutHeld && HeldConnectionAccessor.KEY.equals(key)) {
				changed = true;
			}
			else {
				carried.add(accessor);
			}
		}
		if (this.mdc != null && !mdcThere) {
			carried.add(this.mdc);
			changed = true;
		}
		return changed ? carried : accessors;
	}

	@Override
	public List<ContextAccessor<?, ?>> getContextAccessors() {
		return this.global.getContextAccessors();
	}

	@Override
	public ContextAccessor<?, ?> getContextAccessorForRead(Object context) {
		return this.global.getContextAccessorForRead(context);
	}

	@Override
	public ContextAccessor<?, ?> getContextAccessorForWrite(Object context) {
		return this.global.getContextAccessorForWrite(context);
	}

}
