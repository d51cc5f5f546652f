package dev.resilience.autoconfigure.actuate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests {@link EventRing}: what it keeps, in which order, and under 16 appending threads.
 */
class EventRingTests {

	@Test
	void emptyRingHoldsNothing() {
		EventRing<String> ring = new EventRing<>(3);
		assertThat(ring.newestFirst()).isEmpty();
		assertThat(ring.appended()).isZero();
		assertThat(ring.size()).isEqualTo(3);
	}

	@Test
	void ringNotFullHoldsEveryElementNewestFirst() {
		EventRing<String> ring = new EventRing<>(3);
		ring.add("a");
		ring.add("b");
		assertThat(ring.newestFirst()).containsExactly("b", "a");
		assertThat(ring.appended()).isEqualTo(2);
	}

	@Test
	void fullRingOverwritesTheOldest() {
		EventRing<String> ring = new EventRing<>(3);
		List.of("a", "b", "c", "d", "e").forEach(ring::add);
		assertThat(ring.newestFirst()).containsExactly("e", "d", "c");
		assertThat(ring.appended()).isEqualTo(5);
	}

	@Test
	void ringOfOneHoldsTheLast() {
		EventRing<String> ring = new EventRing<>(1);
		ring.add("a");
		ring.add("b");
		assertThat(ring.newestFirst()).containsExactly("b");
	}

	@Test
	void sizeBelowOneIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new EventRing<>(0))
			.withMessage("size must be at least 1 but was 0");
	}

	@Test
	void writerPausedPastAWrapDoesNotReplaceTheNewerElement() {
		EventRing<String> ring = new EventRing<>(2);
		long paused = ring.claim();
		ring.add("b");
		ring.add("c");
		// "c" took the paused writer's slot; the paused writer stores last
		ring.store(paused, "a");
		assertThat(ring.newestFirst()).containsExactly("c", "b");
		assertThat(ring.appended()).isEqualTo(3);
	}

	@Test
	void writerNotYetStoredIsSkippedByAReader() {
		EventRing<String> ring = new EventRing<>(3);
		ring.add("a");
		long pending = ring.claim();
		ring.add("c");
		assertThat(ring.newestFirst()).containsExactly("c", "a");
		ring.store(pending, "b");
		assertThat(ring.newestFirst()).containsExactly("c", "b", "a");
	}

	@Test
	void snapshotIsACopy() {
		EventRing<String> ring = new EventRing<>(2);
		ring.add("a");
		List<String> snapshot = ring.newestFirst();
		ring.add("b");
		assertThat(snapshot).containsExactly("a");
	}

	/**
	 * 16 threads append 20,000 elements each while 2 threads read: every snapshot holds no null, no
	 * duplicate, at most {@code size} elements, each thread's in the reverse of the order it
	 * appended them; at the end the ring holds exactly the last {@code size} of each thread's and
	 * all of them, {@code size} distinct, with the exact count appended. The writers wait halfway
	 * until each reader has read once, so that reads overlap writes however the threads are run.
	 * A ring of 16 makes it likely that a writer paused between taking its number and storing
	 * comes back after one 16 numbers later stored in the same slot, which must not be lost.
	 */
	@ParameterizedTest
	@ValueSource(ints = { 1_000, 16 })
	void sixteenThreadsAppendingKeepExactlyTheNewest(int size) throws Exception {
		int threads = 16;
		int perThread = 20_000;
		int readers = 2;
		EventRing<Element> ring = new EventRing<>(size);
		ExecutorService executor = Executors.newFixedThreadPool(threads + readers);
		try {
			CountDownLatch start = new CountDownLatch(1);
			CountDownLatch readWhileWriting = new CountDownLatch(readers);
			AtomicBoolean writing = new AtomicBoolean(true);
			List<Future<?>> writers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				writers.add(executor.submit(() -> {
					start.await();
					for (int i = 0; i < perThread; i++) {
						if (i == perThread / 2) {
							assertThat(readWhileWriting.await(60, TimeUnit.SECONDS)).isTrue();
						}
						ring.add(new Element(thread, i));
					}
					return null;
				}));
			}
			List<Future<Integer>> reads = new ArrayList<>();
			for (int r = 0; r < readers; r++) {
				reads.add(executor.submit(() -> {
					start.await();
					int overlapping = 0;
					while (writing.get()) {
						boolean during = ring.appended() < (long) threads * perThread;
						checkSnapshot(ring.newestFirst(), size);
						if (during && overlapping++ == 0) {
							readWhileWriting.countDown();
						}
					}
					return overlapping;
				}));
			}
			start.countDown();
			for (Future<?> writer : writers) {
				writer.get(60, TimeUnit.SECONDS);
			}
			writing.set(false);
			for (Future<Integer> read : reads) {
				assertThat(read.get(60, TimeUnit.SECONDS)).isPositive();
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(ring.appended()).isEqualTo((long) threads * perThread);
		List<Element> held = ring.newestFirst();
		assertThat(held).hasSize(size).doesNotContainNull().doesNotHaveDuplicates();
		checkSnapshot(held, size);
		// Each thread's elements held are its newest: from its last one down, without a gap.
		Map<Integer, List<Integer>> byThread = new HashMap<>();
		held.forEach((element) -> byThread.computeIfAbsent(element.thread, (t) -> new ArrayList<>()).add(element.index));
		byThread.forEach((thread, indexes) -> {
			for (int i = 0; i < indexes.size(); i++) {
				assertThat(indexes.get(i)).as("thread %d", thread).isEqualTo(perThread - 1 - i);
			}
		});
	}

	private static void checkSnapshot(List<Element> snapshot, int size) {
		assertThat(snapshot.size()).isLessThanOrEqualTo(size);
		Set<Element> seen = new HashSet<>();
		Map<Integer, Integer> lastIndex = new HashMap<>();
		for (Element element : snapshot) {
			assertThat(element).isNotNull();
			assertThat(seen.add(element)).as("duplicate %s", element).isTrue();
			Integer newer = lastIndex.put(element.thread, element.index);
			if (newer != null) {
				assertThat(element.index).as("newest first for thread %d", element.thread).isLessThan(newer);
			}
		}
	}

	private record Element(int thread, int index) {
	}

}
