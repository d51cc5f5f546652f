package dev.resilience.autoconfigure.ratelimit;

import java.util.LinkedHashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * Which limiters admitted the {@code @RateLimited} call running now, so that an HTTP request it
 * makes through a client those limiters also watch ({@code http-client.hosts}) is not decided a
 * second time (SPEC §10). Set on the calling thread while a blocking or {@code CompletionStage}
 * method runs, and in the Reactor context of a {@code Mono} or {@code Flux} method's subscription.
 */
public final class AdmittedLimiters {

	private static final ThreadLocal<@Nullable Set<String>> current = new ThreadLocal<>();

	private AdmittedLimiters() {
	}

	/**
	 * Returns whether a call running on this thread was admitted by the named limiter.
	 * @param limiterName the limiter's name
	 * @return whether it was
	 */
	public static boolean isAdmitted(String limiterName) {
		Set<String> admitted = current.get();
		return admitted != null && admitted.contains(limiterName);
	}

	/**
	 * Returns whether the subscription whose context is given, or a call running on this thread,
	 * was admitted by the named limiter.
	 * @param limiterName the limiter's name
	 * @param context the subscriber's Reactor context
	 * @return whether it was
	 */
	public static boolean isAdmitted(String limiterName, ContextView context) {
		Set<String> admitted = context.getOrDefault(AdmittedLimiters.class, null);
		return (admitted != null && admitted.contains(limiterName)) || isAdmitted(limiterName);
	}

	/**
	 * Runs a call marked as admitted by the given limiters on this thread, with those of an
	 * enclosing call.
	 * @param <T> what the call returns
	 * @param limiterNames the limiters that admitted it
	 * @param call the call
	 * @return what it returns
	 * @throws Throwable what it throws
	 */
	static <T> T call(Set<String> limiterNames, Call<T> call) throws Throwable {
		Set<String> enclosing = current.get();
		current.set(union(enclosing, limiterNames));
		try {
			return call.call();
		}
		finally {
			if (enclosing != null) {
				current.set(enclosing);
			}
			else {
				current.remove();
			}
		}
	}

	/**
	 * Returns a Reactor context that marks the subscription as admitted by the given limiters too.
	 * @param context the subscriber's context, a {@link Context} (typed {@code Object} so that
	 * callers need no Reactor)
	 * @param limiterNames the limiters that admitted it
	 * @return the context
	 */
	static Object mark(Object context, Set<String> limiterNames) {
		Context reactorContext = (Context) context;
		return reactorContext.put(AdmittedLimiters.class,
				union(reactorContext.getOrDefault(AdmittedLimiters.class, null), limiterNames));
	}

	/**
	 * A call that may throw anything, as a method invocation does.
	 *
	 * @param <T> what it returns
	 */
	@FunctionalInterface
	interface Call<T> {

		T call() throws Throwable;

	}

	private static Set<String> union(@Nullable Set<String> enclosing, Set<String> limiterNames) {
		if (enclosing == null || enclosing.containsAll(limiterNames)) {
			return (enclosing != null) ? enclosing : limiterNames;
		}
		Set<String> both = new LinkedHashSet<>(enclosing);
		both.addAll(limiterNames);
		return Set.copyOf(both);
	}

}
