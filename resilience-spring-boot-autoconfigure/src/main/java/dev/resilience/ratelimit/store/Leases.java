package dev.resilience.ratelimit.store;

import java.util.Arrays;

/**
 * The concurrency permits held for one key: the sequence number and start of each call in flight.
 * A permit whose holder never returns it is reclaimed {@code lease-timeout} after it was taken,
 * so a crashed caller cannot hold a slot forever. Reusable by a {@link RateLimitStore} of your
 * own; mutable and not thread safe: a store calls it while holding the key's lock. Leases are few
 * (at most {@code max-concurrent}), so plain arrays in order of start serve.
 */
public final class Leases {

	private long[] sequences = new long[2];

	private long[] starts = new long[2];

	private int size;

	/**
	 * Creates an empty set of leases.
	 */
	public Leases() {
	}

	/**
	 * Returns how many permits are held.
	 * @return the number of leases
	 */
	public int size() {
		return this.size;
	}

	/**
	 * Reclaims the leases taken {@code timeout} or longer before {@code now}.
	 * @param now the current time
	 * @param timeout the lease timeout in nanoseconds
	 */
	public void prune(long now, long timeout) {
		int expired = 0;
		while (expired < this.size && now - this.starts[expired] >= timeout) {
			expired++;
		}
		if (expired > 0) {
			removeRange(0, expired);
		}
	}

	/**
	 * Records a permit taken.
	 * @param sequence the call's sequence number
	 * @param start when the call takes the permit (later than now for a reserved call)
	 */
	public void add(long sequence, long start) {
		if (this.size == this.sequences.length) {
			this.sequences = Arrays.copyOf(this.sequences, this.size * 2);
			this.starts = Arrays.copyOf(this.starts, this.size * 2);
		}
		// Reservations may start later than calls admitted after them: keep the order of start.
		int index = this.size;
		while (index > 0 && this.starts[index - 1] > start) {
			index--;
		}
		System.arraycopy(this.sequences, index, this.sequences, index + 1, this.size - index);
		System.arraycopy(this.starts, index, this.starts, index + 1, this.size - index);
		this.sequences[index] = sequence;
		this.starts[index] = start;
		this.size++;
	}

	/**
	 * Returns a permit.
	 * @param sequence the call's sequence number
	 * @return when the permit was taken, or {@link Long#MIN_VALUE} when it is no longer held
	 */
	public long remove(long sequence) {
		for (int i = 0; i < this.size; i++) {
			if (this.sequences[i] == sequence) {
				long start = this.starts[i];
				removeRange(i, i + 1);
				return start;
			}
		}
		return Long.MIN_VALUE;
	}

	private void removeRange(int from, int to) {
		System.arraycopy(this.sequences, to, this.sequences, from, this.size - to);
		System.arraycopy(this.starts, to, this.starts, from, this.size - to);
		this.size -= to - from;
	}

	/**
	 * Returns when the oldest lease was taken.
	 * @return its start
	 * @throws IllegalStateException if no permit is held
	 */
	public long oldestStart() {
		if (this.size == 0) {
			throw new IllegalStateException("no permit is held");
		}
		return this.starts[0];
	}

}
