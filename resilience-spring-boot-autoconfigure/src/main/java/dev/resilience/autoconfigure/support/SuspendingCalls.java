package dev.resilience.autoconfigure.support;

import io.micrometer.context.ContextSnapshot;
import kotlin.coroutines.AbstractCoroutineContextElement;
import kotlin.coroutines.Continuation;
import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.ThreadContextElement;

/**
 * The context of a call of a Kotlin {@code suspend} function, carried into its coroutine. Spring's
 * AOP runs the function in a coroutine whose context is that of the continuation passed as its
 * last argument (less its job); a continuation whose context adds an element restoring the call's
 * thread locals makes every resumption of the function, on whatever thread, see what the call
 * saw when it was invoked: the caller's MDC and observation, and the connection a pool holds for
 * it ({@link dev.resilience.pool.ConnectionPool#current()}). Loaded only for suspend functions,
 * which need kotlinx-coroutines already.
 */
final class SuspendingCalls {

	private SuspendingCalls() {
	}

	/**
	 * The arguments of a suspend function with its continuation's context restoring a snapshot.
	 * @param arguments the call's arguments, the continuation last; not changed
	 * @param context what to restore in each resumption
	 * @return a copy of the arguments
	 */
	@SuppressWarnings("unchecked")
	static Object[] withContext(Object[] arguments, ContextSnapshot context) {
		Object[] copy = arguments.clone();
		int last = copy.length - 1;
		Continuation<Object> continuation = (Continuation<Object>) copy[last];
		copy[last] = new ContextContinuation(continuation,
				continuation.getContext().plus(new ContextElement(context)));
		return copy;
	}

	/** The caller's continuation with a context of its own; Spring's AOP reads the context only. */
	private record ContextContinuation(Continuation<Object> continuation,
			CoroutineContext context) implements Continuation<Object> {

		@Override
		public CoroutineContext getContext() {
			return this.context;
		}

		@Override
		public void resumeWith(Object result) {
			this.continuation.resumeWith(result);
		}

	}

	/**
	 * Sets a snapshot's thread locals while the coroutine runs on a thread, and restores the
	 * thread's own when it suspends. One per coroutine: an inner call's (which sees the outer's
	 * values too, and a pool's connection besides) replaces the outer's.
	 */
	private static final class ContextElement extends AbstractCoroutineContextElement
			implements ThreadContextElement<ContextSnapshot.Scope> {

		static final CoroutineContext.Key<ContextElement> KEY = new CoroutineContext.Key<>() {
		};

		private final ContextSnapshot context;

		ContextElement(ContextSnapshot context) {
			super(KEY);
			this.context = context;
		}

		@Override
		public ContextSnapshot.Scope updateThreadContext(CoroutineContext coroutineContext) {
			return this.context.setThreadLocals();
		}

		@Override
		public void restoreThreadContext(CoroutineContext coroutineContext, ContextSnapshot.Scope scope) {
			scope.close();
		}

	}

}
