package dev.resilience.ratelimit;

import java.util.Arrays;

/**
 * The concurrency permits held for one key: the sequence number and start of each call in flight.
 * A permit whose holder never returns it is reclaimed {@code lease-timeout} after it was taken,
 * so a crashed caller cannot hold a slot forever. Mutable: the store calls it under the key's
 * lock. Leases are few (at most {@code max-concurrent}), so plain arrays in order of start serve.
 */
final class Leases {

	private long[] sequences = new long[2];

	private long[] starts = new long[2];

	private int size;

	int size() {
		return this.size;
	}

	/** Reclaims the leases taken {@code timeout} or longer before {@code now}. */
	void prune(long now, long timeout) {
		int expired = 0;
		while (expired < this.size && now - this.starts[expired] >= timeout) {
			expired++;
		}
		if (expired > 0) {
			removeRange(0, expired);
		}
	}

	void add(long sequence, long start) {
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
	 * @return when the permit was taken, or {@link Long#MIN_VALUE} when it is no longer held
	 */
	long remove(long sequence) {
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

	/** When the oldest lease was taken; only for a non-empty set. */
	long oldestStart() {
		return this.starts[0];
	}

}
