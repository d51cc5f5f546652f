package dev.resilience.pool;

import java.util.concurrent.Callable;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.ConnectionsHeld;

/**
 * The connections held by the calls a thread runs inside, innermost first: one thread local for
 * every pool, so that one value carries them all across threads ({@link HeldConnectionAccessor}),
 * a nested pool's and the pool around it alike. A value is never changed once set, only replaced,
 * except that its call ends: a continuation that outlives the call then finds its connection gone
 * instead of using one given back.
 */
final class HeldConnections {

	private static final ThreadLocal<@Nullable HeldConnections> HELD = new ThreadLocal<>();

	private final DeadlinePool<?> pool;

	private final Handle<?> handle;

	private final @Nullable HeldConnections outer;

	/** Set once the call let go of its connection, before the connection goes back. */
	private volatile boolean ended;

	private HeldConnections(DeadlinePool<?> pool, Handle<?> handle, @Nullable HeldConnections outer) {
		this.pool = pool;
		this.handle = handle;
		this.outer = outer;
	}

	/** The connections held here, or {@code null} for none. */
	static @Nullable HeldConnections get() {
		// Until a pool's call held a connection, no thread holds one: the thread local is not touched.
		return ConnectionsHeld.ever() ? HELD.get() : null;
	}

	/**
	 * Sets what the thread holds. Clearing keeps the thread's entry, set to {@code null}: removing
	 * it made the next read create it again, around every continuation.
	 */
	static void set(@Nullable HeldConnections held) {
		if (held != null) {
			HELD.set(held);
		}
		else if (ConnectionsHeld.ever() && HELD.get() != null) {
			HELD.set(null);
		}
	}

	/**
	 * A call's connection held inside the calls of another value.
	 * @param outer what the caller held, or {@code null}
	 */
	static <T> HeldConnections inside(@Nullable HeldConnections outer, DeadlinePool<T> pool, Handle<T> handle) {
		ConnectionsHeld.note();
		return new HeldConnections(pool, handle, outer);
	}

	/**
	 * The innermost connection of a pool held here, whether its call ended or not.
	 * @return the held connection, or {@code null} if the thread runs in no call of the pool
	 */
	static @Nullable HeldConnections find(DeadlinePool<?> pool) {
		for (HeldConnections held = HELD.get(); held != null; held = held.outer) {
			if (held.pool == pool) {
				return held;
			}
		}
		return null;
	}

	@SuppressWarnings("unchecked")
	<T> Handle<T> handle() {
		return (Handle<T>) this.handle;
	}

	boolean isEnded() {
		return this.ended;
	}

	/** The call lets go of its connection: from now on it is no longer current anywhere. */
	void end() {
		this.ended = true;
	}

	/** Runs code with this as what the thread holds, then restores what it held before. */
	<R> R call(Callable<R> code) throws Exception {
		HeldConnections before = HELD.get();
		HELD.set(this);
		try {
			return code.call();
		}
		finally {
			set(before);
		}
	}

}
