package dev.resilience.autoconfigure.support;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.context.ContextAccessor;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import io.micrometer.context.integration.Slf4jThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * What the starter carries of a caller's context: the accessors of context-propagation's global
 * {@link ContextRegistry} as they are at each capture, plus the SLF4J MDC, which
 * context-propagation ships an accessor for but does not register. Read through, not copied, so an
 * accessor registered with the global registry after this was made (as the starter's web support
 * registers the request's rate-limit header items when its listener is created) travels too; the
 * global registry itself is left untouched.
 */
public final class GlobalContextRegistry extends ContextRegistry {

	private final ContextRegistry global;

	private final @Nullable ThreadLocalAccessor<?> mdc;

	/**
	 * Creates the view of the global registry.
	 * @param classLoader looks for SLF4J
	 */
	public GlobalContextRegistry(@Nullable ClassLoader classLoader) {
		this.global = ContextRegistry.getInstance();
		this.mdc = ClassUtils.isPresent("org.slf4j.MDC", classLoader) ? new Slf4jThreadLocalAccessor() : null;
	}

	@Override
	public List<ThreadLocalAccessor<?>> getThreadLocalAccessors() {
		List<ThreadLocalAccessor<?>> accessors = this.global.getThreadLocalAccessors();
		ThreadLocalAccessor<?> mdc = this.mdc;
		if (mdc == null) {
			return accessors;
		}
		for (ThreadLocalAccessor<?> accessor : accessors) {
			if (Slf4jThreadLocalAccessor.KEY.equals(accessor.key())) {
				return accessors;
			}
		}
		List<ThreadLocalAccessor<?>> withMdc = new ArrayList<>(accessors.size() + 1);
		withMdc.addAll(accessors);
		withMdc.add(mdc);
		return withMdc;
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
