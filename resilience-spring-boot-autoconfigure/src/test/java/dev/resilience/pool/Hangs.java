package dev.resilience.pool;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The {@link Hang}s a test made, all released after it, so that no thread stays hung. */
final class Hangs {

	private final List<Hang> made = new CopyOnWriteArrayList<>();

	Hang hang() {
		return hang(1);
	}

	Hang hang(int expectedEntries) {
		Hang hang = new Hang(expectedEntries);
		this.made.add(hang);
		return hang;
	}

	void releaseAll() {
		this.made.forEach(Hang::release);
	}

}
