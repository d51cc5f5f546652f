package dev.resilience.autoconfigure.support;

import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.TimeoutException;

import dev.resilience.internal.Causes;
import dev.resilience.pool.OperationTimeoutException;

/**
 * Tells a failure that says the partner did not answer in time: what an adaptive concurrency
 * limit counts as a drop (SPEC §11).
 */
public final class Timeouts {

	private Timeouts() {
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
		for (Throwable cause : Causes.chain(failure)) {
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
