package dev.resilience.internal;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;

import dev.resilience.pool.OperationTimeoutException;

/**
 * Reads the chain of causes of a failure, which retries and polls decide on: a failure counts
 * as what it wraps, too.
 */
public final class Causes {

	private Causes() {
	}

	/**
	 * Returns the failure followed by its causes, each once: a chain that comes back to an
	 * exception already seen (some libraries make one cause itself) ends there.
	 * @param failure the failure
	 * @return the failure and its causes, outermost first
	 */
	public static List<Throwable> chain(Throwable failure) {
		List<Throwable> chain = new ArrayList<>();
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Throwable cause = failure; cause != null && seen.add(cause); cause = cause.getCause()) {
			chain.add(cause);
		}
		return chain;
	}

	/**
	 * Returns whether the failure or one of its causes tells that the thread was interrupted:
	 * an {@link InterruptedException}, a {@link ClosedByInterruptException} or an
	 * {@link InterruptedIOException} other than a {@link SocketTimeoutException}, which is only a
	 * timeout.
	 * @param failure the failure
	 * @return whether it is or wraps an interruption
	 */
	public static boolean isInterruption(Throwable failure) {
		for (Throwable cause : chain(failure)) {
			if (cause instanceof InterruptedException || cause instanceof ClosedByInterruptException
					|| (cause instanceof InterruptedIOException && !(cause instanceof SocketTimeoutException))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Returns whether the failure or one of its causes tells that the partner did not answer in
	 * time: {@code @WithConnection}'s {@link OperationTimeoutException}, a
	 * {@link TimeoutException}, a {@link SocketTimeoutException} (a read or connect timeout of a
	 * blocking client), an {@link HttpTimeoutException} (the JDK's client), or Netty's
	 * {@code io.netty.handler.timeout.TimeoutException} and {@code ConnectTimeoutException}
	 * (Reactor Netty's, read by name so that Netty is not needed). A pool's checkout timeout is
	 * not one: the call never reached the partner.
	 * @param failure the failure
	 * @return whether it is or wraps a timeout
	 */
	public static boolean isTimeout(Throwable failure) {
		for (Throwable cause : chain(failure)) {
			if (cause instanceof OperationTimeoutException || cause instanceof TimeoutException
					|| cause instanceof SocketTimeoutException || cause instanceof HttpTimeoutException
					|| isNettyTimeout(cause.getClass())) {
				return true;
			}
		}
		return false;
	}

	private static boolean isNettyTimeout(Class<?> type) {
		for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
			String name = candidate.getName();
			if (name.startsWith("io.netty.") && (name.equals("io.netty.handler.timeout.TimeoutException")
					|| name.equals("io.netty.channel.ConnectTimeoutException"))) {
				return true;
			}
		}
		return false;
	}

}
