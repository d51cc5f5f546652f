package dev.resilience.ratelimit;

import java.util.Arrays;

/**
 * The concurrency permits held for one key: an id and an expiry per call in flight. A permit
 * whose holder never returns it is reclaimed at its expiry, so a crashed caller cannot hold a
 * slot forever. Immutable.
 */
final class Leases {

	static final Leases NONE = new Leases(new long[0], new long[0]);

	private final long[] ids;

	private final long[] expiries;

	private Leases(long[] ids, long[] expiries) {
		this.ids = ids;
		this.expiries = expiries;
	}

	int size() {
		return this.ids.length;
	}

	Leases prune(long now) {
		int kept = 0;
		for (long expiry : this.expiries) {
			if (expiry > now) {
				kept++;
			}
		}
		if (kept == this.ids.length) {
			return this;
		}
		long[] newIds = new long[kept];
		long[] newExpiries = new long[kept];
		int index = 0;
		for (int i = 0; i < this.ids.length; i++) {
			if (this.expiries[i] > now) {
				newIds[index] = this.ids[i];
				newExpiries[index++] = this.expiries[i];
			}
		}
		return new Leases(newIds, newExpiries);
	}

	Leases add(long id, long expiry) {
		long[] newIds = Arrays.copyOf(this.ids, this.ids.length + 1);
		long[] newExpiries = Arrays.copyOf(this.expiries, this.expiries.length + 1);
		newIds[this.ids.length] = id;
		newExpiries[this.ids.length] = expiry;
		return new Leases(newIds, newExpiries);
	}

	Leases remove(long id) {
		for (int i = 0; i < this.ids.length; i++) {
			if (this.ids[i] == id) {
				return without(i);
			}
		}
		return this;
	}

	private Leases without(int index) {
		long[] newIds = new long[this.ids.length - 1];
		long[] newExpiries = new long[newIds.length];
		System.arraycopy(this.ids, 0, newIds, 0, index);
		System.arraycopy(this.expiries, 0, newExpiries, 0, index);
		System.arraycopy(this.ids, index + 1, newIds, index, newIds.length - index);
		System.arraycopy(this.expiries, index + 1, newExpiries, index, newIds.length - index);
		return new Leases(newIds, newExpiries);
	}

	long earliestExpiry() {
		long earliest = Long.MAX_VALUE;
		for (long expiry : this.expiries) {
			earliest = Math.min(earliest, expiry);
		}
		return earliest;
	}

	long idleAt() {
		long latest = Long.MIN_VALUE;
		for (long expiry : this.expiries) {
			latest = Math.max(latest, expiry);
		}
		return latest;
	}

}
