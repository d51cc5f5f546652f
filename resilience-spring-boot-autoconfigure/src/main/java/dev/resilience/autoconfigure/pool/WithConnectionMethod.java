package dev.resilience.autoconfigure.pool;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.interceptor.ExposeInvocationInterceptor;

import dev.resilience.pool.ConnectionPool;

/**
 * The {@code @WithConnection} of one method, read and checked: the pool and the deadline.
 *
 * @param pool the pool
 * @param timeout the deadline of one call
 */
public record WithConnectionMethod(ConnectionPool<?> pool, Duration timeout) {

	/**
	 * Runs the rest of the call with a connection of the pool, within the deadline, on a worker
	 * thread.
	 * @param invocation the call
	 * @return the method's result
	 * @throws Throwable what the method throws, or the pool's deadline exceptions
	 */
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		return this.pool.withConnection(this.timeout, (connection) -> proceed(invocation));
	}

	/**
	 * Proceeds on the worker thread. Going through {@link ExposeInvocationInterceptor} exposes the
	 * invocation there too, as AspectJ-style advice further in expects of its thread.
	 */
	private static @Nullable Object proceed(MethodInvocation invocation) throws Exception {
		try {
			return ExposeInvocationInterceptor.INSTANCE.invoke(invocation);
		}
		catch (Exception | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new UndeclaredThrowableException(ex);
		}
	}

}
