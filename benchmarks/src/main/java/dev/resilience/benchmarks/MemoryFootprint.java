package dev.resilience.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import com.github.benmanes.caffeine.cache.Cache;
import io.github.bucket4j.Bucket;

import dev.resilience.ratelimit.RateLimiter;

/**
 * Measures the heap retained per recently used key of a bucket-only limiter: ours against
 * Bucket4j buckets in a Caffeine cache. Not a JMH benchmark: the keys are created first, the
 * heap is measured after full collections, then each key is asked once and the heap measured
 * again; the difference divided by the number of keys is the cost of one key. The keys' own
 * strings are in both measures and so not counted. Buckets refill slowly (one token per hour)
 * so that no key is back to full, and forgotten, before the second measure.
 * <p>
 * Arguments: the number of keys (default {@value #DEFAULT_KEYS}) and an optional CSV file to
 * write {@code impl,keys,bytesPerKey} rows to. Run with a fixed heap and the serial collector,
 * as {@code benchmarks/run.sh} does, for steady numbers.
 */
public final class MemoryFootprint {

	private static final int DEFAULT_KEYS = 200_000;

	private static final long CAPACITY = 10;

	private static final Duration ONE_TOKEN_EVERY = Duration.ofHours(1);

	private static final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

	private MemoryFootprint() {
	}

	public static void main(String[] args) throws IOException, InterruptedException {
		int count = (args.length > 0) ? Integer.parseInt(args[0]) : DEFAULT_KEYS;
		String[] keys = keys("client-", count);
		List<String> rows = new ArrayList<>();
		rows.add("impl,keys,bytesPerKey");
		for (String impl : List.of("ours", "bucket4j_caffeine")) {
			// A few keys first, in a limiter thrown away, so that class loading and one-time
			// structures are not counted.
			measure(impl, keys("warmup-", 1_000));
			double bytesPerKey = measure(impl, keys);
			System.out.printf(Locale.ROOT, "%-18s %,d keys: %.1f bytes per key%n", impl, count, bytesPerKey);
			rows.add(String.format(Locale.ROOT, "%s,%d,%.1f", impl, count, bytesPerKey));
		}
		if (args.length > 1) {
			Files.write(Path.of(args[1]), rows);
		}
		Reference.reachabilityFence(keys);
	}

	private static double measure(String impl, String[] keys) throws InterruptedException {
		long before = usedHeap();
		Object holder;
		switch (impl) {
			case "ours" -> {
				RateLimiter ours = Contenders.oursTokenBucket(CAPACITY, 1, ONE_TOKEN_EVERY);
				askEachOnce(keys, (key) -> ours.tryAcquire(key, 1).isPermitted());
				holder = ours;
			}
			case "bucket4j_caffeine" -> {
				Cache<String, Bucket> buckets = Contenders.bucket4jCache(RandomKeysBenchmark.MAXIMUM_SIZE);
				askEachOnce(keys, (key) -> buckets
					.get(key, (k) -> Contenders.bucket4j(CAPACITY, 1, ONE_TOKEN_EVERY))
					.tryConsume(1));
				buckets.cleanUp();
				if (buckets.estimatedSize() != keys.length) {
					throw new IllegalStateException("Caffeine holds " + buckets.estimatedSize() + " of "
							+ keys.length + " keys");
				}
				holder = buckets;
			}
			default -> throw new IllegalArgumentException("Unknown implementation '" + impl + "'");
		}
		long after = usedHeap();
		Reference.reachabilityFence(holder);
		Reference.reachabilityFence(keys);
		return (double) (after - before) / keys.length;
	}

	private static void askEachOnce(String[] keys, Predicate<String> limiter) {
		for (String key : keys) {
			if (!limiter.test(key)) {
				throw new IllegalStateException("The first call for '" + key + "' was rejected");
			}
		}
	}

	private static String[] keys(String prefix, int count) {
		String[] keys = new String[count];
		for (int i = 0; i < count; i++) {
			keys[i] = prefix + i;
			// Computes and caches the hash inside the string now, not while measuring.
			keys[i].hashCode();
		}
		return keys;
	}

	/**
	 * Returns the heap in use after full collections, repeated until it stops shrinking so that
	 * caches' deferred maintenance (Caffeine's runs on another thread) is done.
	 * @return the bytes in use
	 */
	private static long usedHeap() throws InterruptedException {
		long used = Long.MAX_VALUE;
		for (int round = 0; round < 10; round++) {
			System.gc();
			Thread.sleep(100);
			long now = memory.getHeapMemoryUsage().getUsed();
			if (round >= 3 && now >= used) {
				return Math.min(used, now);
			}
			used = Math.min(used, now);
		}
		return used;
	}

}
