package dev.resilience.autoconfigure.pool;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

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
	 * Runs the rest of an asynchronous call with a connection of the pool, within the deadline,
	 * holding no thread while it waits: the invocation is made once a connection came, on the
	 * pool's scheduler with the connection as {@link ConnectionPool#current()}, and the connection
	 * is held until the stage it returns completes. Returns at once.
	 * @param invocation invokes the rest of the call and returns its stage
	 * @return the future of the call: the stage's outcome, or the pool's deadline exceptions
	 * @see ConnectionPool#withConnectionAsync(Duration, dev.resilience.pool.AsyncConnectionCallback)
	 */
	public CompletableFuture<@Nullable Object> invokeAsync(Supplier<? extends CompletionStage<?>> invocation) {
		return this.pool.<@Nullable Object>withConnectionAsync(this.timeout, (connection) -> stage(invocation));
	}

	@SuppressWarnings("unchecked")
	private static CompletionStage<@Nullable Object> stage(Supplier<? extends CompletionStage<?>> invocation) {
		return (CompletionStage<@Nullable Object>) invocation.get();
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
