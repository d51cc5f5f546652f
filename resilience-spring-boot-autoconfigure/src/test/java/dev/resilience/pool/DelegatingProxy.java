package dev.resilience.pool;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import org.jspecify.annotations.Nullable;

/**
 * A proxy of an interface whose calls a test decides, usually by passing them on to a real
 * object ({@link #invoke}) and changing one method: a stage that refuses
 * {@code toCompletableFuture}, a scheduler whose cancels fail.
 */
final class DelegatingProxy {

	private DelegatingProxy() {
	}

	static <P> P of(Class<P> type, Handler handler) {
		return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type },
				(proxy, method, args) -> handler.handle(method, args)));
	}

	/** Calls the method on the target, throwing what the method threw. */
	static @Nullable Object invoke(Method method, Object target, @Nullable Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	/** Decides one call of the proxy. */
	interface Handler {

		@Nullable Object handle(Method method, @Nullable Object[] args) throws Throwable;

	}

}
