package dev.resilience.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The last {@code size} elements appended, in bounded memory, appended without a lock.
 * <p>
 * Design: an append takes the next number of a sequence ({@code getAndIncrement}, one atomic add)
 * and stores an immutable {@link Slot} of that number and the element at the number modulo the
 * size, replacing the slot of the element {@code size} appends older. A writer paused between
 * taking its number and storing may come back after a writer {@code size} numbers later stored in
 * the same slot: the store is a compare-and-set that never replaces a newer number, so the old
 * element is dropped rather than the new one lost. A reader takes the sequence's end and walks
 * back from it, keeping each slot whose number is the one it expects: an append that took its
 * number but has not stored its slot yet, and a slot already replaced by a newer append, are
 * skipped, so a snapshot never holds an element twice, nor one older than {@code size} appends
 * before the end it read, and lists them newest first. Once appends stop, it holds exactly the
 * last {@code min(appended, size)}. The idea of a sequence claimed first and published per slot is
 * the LMAX Disruptor's ring buffer's, without its waiting: an event log may lose what is
 * overwritten while it is read.
 *
 * @param <T> the type of element
 */
final class EventRing<T> {

	private final AtomicReferenceArray<Slot<T>> slots;

	private final AtomicLong sequence = new AtomicLong();

	/**
	 * Creates an empty ring.
	 * @param size how many elements it keeps
	 * @throws IllegalArgumentException if {@code size} is less than 1
	 */
	EventRing(int size) {
		if (size < 1) {
			throw new IllegalArgumentException("size must be at least 1 but was " + size);
		}
		this.slots = new AtomicReferenceArray<>(size);
	}

	/**
	 * Appends an element, overwriting the oldest when the ring is full.
	 * @param element the element
	 */
	void add(T element) {
		store(claim(), element);
	}

	/**
	 * Takes the next number, the first step of {@link #add}; apart so that a test can pause
	 * between the two steps.
	 * @return the number
	 */
	long claim() {
		return this.sequence.getAndIncrement();
	}

	/**
	 * Stores an element under a number {@link #claim()} gave, unless a newer number holds its slot.
	 * @param number the number
	 * @param element the element
	 */
	void store(long number, T element) {
		int index = index(number);
		Slot<T> slot = new Slot<>(number, element);
		Slot<T> current = this.slots.get(index);
		while (current == null || current.number < number) {
			if (this.slots.compareAndSet(index, current, slot)) {
				return;
			}
			current = this.slots.get(index);
		}
	}

	/**
	 * Returns the elements held, newest first.
	 * @return a new list
	 */
	List<T> newestFirst() {
		long end = this.sequence.get();
		long start = Math.max(0, end - size());
		List<T> elements = new ArrayList<>((int) (end - start));
		for (long number = end - 1; number >= start; number--) {
			Slot<T> slot = this.slots.get(index(number));
			if (slot != null && slot.number == number) {
				elements.add(slot.element);
			}
		}
		return elements;
	}

	/**
	 * Returns how many elements were ever appended.
	 * @return the count
	 */
	long appended() {
		return this.sequence.get();
	}

	/**
	 * Returns how many elements the ring keeps.
	 * @return the size
	 */
	int size() {
		return this.slots.length();
	}

	private int index(long number) {
		return (int) (number % this.slots.length());
	}

	private record Slot<T>(long number, T element) {
	}

}
