package dev.resilience.autoconfigure.support;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import io.micrometer.context.integration.Slf4jThreadLocalAccessor;
import org.junit.jupiter.api.Test;

import dev.resilience.pool.HeldConnectionAccessor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link GlobalContextRegistry}: the global registry's accessors plus the MDC, and the
 * pools' held connections only once a pool's call has held one.
 */
class GlobalContextRegistryTests {

	@Test
	void heldConnectionsAreCarriedOnlyOnceAPoolsCallHeldOne() {
		AtomicBoolean connectionsHeld = new AtomicBoolean();
		GlobalContextRegistry registry = new GlobalContextRegistry(getClass().getClassLoader(), connectionsHeld::get);
		// registered by the starter's META-INF/services, so the global registry has it
		assertThat(keys(ContextRegistry.getInstance().getThreadLocalAccessors())).contains(HeldConnectionAccessor.KEY);
		assertThat(keys(registry.getThreadLocalAccessors())).doesNotContain(HeldConnectionAccessor.KEY)
			.contains(Slf4jThreadLocalAccessor.KEY);
		connectionsHeld.set(true);
		assertThat(keys(registry.getThreadLocalAccessors())).contains(HeldConnectionAccessor.KEY,
				Slf4jThreadLocalAccessor.KEY);
	}

	@Test
	void theGlobalListItselfIsGivenWhenNothingIsAddedOrLeftOutAndTheMdcNeverTwice() {
		ContextRegistry global = ContextRegistry.getInstance();
		boolean mdcWasThere = keys(global.getThreadLocalAccessors()).contains(Slf4jThreadLocalAccessor.KEY);
		global.registerThreadLocalAccessor(new Slf4jThreadLocalAccessor());
		try {
			GlobalContextRegistry registry = new GlobalContextRegistry(getClass().getClassLoader(), () -> true);
			assertThat(registry.getThreadLocalAccessors()).isSameAs(global.getThreadLocalAccessors())
				.containsExactlyElementsOf(global.getThreadLocalAccessors());
			GlobalContextRegistry beforeAnyPool = new GlobalContextRegistry(getClass().getClassLoader(), () -> false);
			assertThat(keys(beforeAnyPool.getThreadLocalAccessors())).doesNotContain(HeldConnectionAccessor.KEY)
				.containsOnlyOnce(Slf4jThreadLocalAccessor.KEY);
		}
		finally {
			if (!mdcWasThere) {
				global.removeThreadLocalAccessor(Slf4jThreadLocalAccessor.KEY);
			}
		}
	}

	private static List<Object> keys(List<ThreadLocalAccessor<?>> accessors) {
		return accessors.stream().map(ThreadLocalAccessor::key).map(Object.class::cast).toList();
	}

}
