package dev.resilience.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.VirtualThreadTaskExecutor;

import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.poll.PollUntil;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.OperationTimeoutException;
import dev.resilience.pool.WithConnection;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Thousands of virtual threads through each blocking annotation, with
 * {@code spring.threads.virtual.enabled=true}: waits and backoff park the virtual thread (none
 * pins its carrier inside the starter, as JFR's {@code jdk.VirtualThreadPinned} shows), limits and
 * deadlines hold, and the counts are exact. Runs on JDK 21 and later; {@code .ci/run} checks that
 * its JDK 25 run executed these tests rather than skipped them.
 */
@EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need JDK 21+; .ci/run runs these on JDK 25")
class VirtualThreadsTests {

	private static final int CALLERS = 2_000;

	/** Calls made before JFR records, so that the classes they use are initialized (see below). */
	private static final int WARM_UP = 32;

	private static final int ALL = WARM_UP + CALLERS;

	/** Calls of the poll made one by one before its warm-up, for its expression's compiled class. */
	private static final int SPEL_WARM_UP_CALLS = 40;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class, PollAutoConfiguration.class,
				ConnectionPoolAutoConfiguration.class))
		.withBean(Partner.class)
		.withPropertyValues("spring.threads.virtual.enabled=true",
				"resilience.rate-limiters.window.windows[0].limit=500",
				"resilience.rate-limiters.window.windows[0].period=500ms",
				"resilience.rate-limiters.window.max-wait=30s",
				"resilience.rate-limiters.permits.max-concurrent=16",
				"resilience.rate-limiters.permits.max-wait=30s",
				"resilience.retries.flaky.max-retries=2", "resilience.retries.flaky.delay=20ms",
				"resilience.retries.flaky.backoff=fixed", "resilience.retries.flaky.jitter=none",
				"resilience.polls.ready.max-attempts=4", "resilience.polls.ready.delay=20ms",
				"resilience.polls.ready.backoff=fixed",
				"resilience.pools.workers.max-size=16", "resilience.pools.workers.timeout=30s",
				"resilience.pools.hung.max-size=64", "resilience.pools.hung.timeout=300ms");

	@Test
	void waitingForWindowSlotsParks(@TempDir Path dir) throws Exception {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			long started = System.nanoTime();
			List<Integer> results = onVirtualThreads(dir, CALLERS, partner::windowed);
			// 500 a half second: 2,032 callers need the window to move on four times.
			assertThat(results).hasSize(CALLERS).containsOnly(1);
			assertThat(partner.calls()).isEqualTo(ALL);
			assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(2_000));
		});
	}

	@Test
	void waitingForConcurrencyPermitsParksAndNeverAdmitsMoreThanTheLimit(@TempDir Path dir) throws Exception {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			List<Integer> results = onVirtualThreads(dir, CALLERS, partner::permitted);
			assertThat(results).hasSize(CALLERS).containsOnly(1);
			assertThat(partner.calls()).isEqualTo(ALL);
			assertThat(partner.mostInside()).isBetween(1, 16);
			assertThat(partner.inside()).isZero();
		});
	}

	@Test
	void retryBackoffParks(@TempDir Path dir) throws Exception {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			AtomicInteger next = new AtomicInteger();
			List<Integer> results = onVirtualThreads(dir, CALLERS, () -> partner.flaky(next.getAndIncrement()));
			assertThat(results).hasSize(CALLERS).containsOnly(3);
			// Two failures and a success each: exactly three attempts a caller.
			assertThat(partner.calls()).isEqualTo(3 * ALL);
		});
	}

	@Test
	void pollDelaysPark(@TempDir Path dir) throws Exception {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			AtomicInteger next = new AtomicInteger();
			// Past SpEL's compile threshold first (MIXED mode compiles after 100 interpreted
			// evaluations; a call evaluates `until` three times): the compiled expression's class,
			// first used by many threads at once, pinned them while one initialized it.
			for (int i = 0; i < SPEL_WARM_UP_CALLS; i++) {
				partner.ready(next.getAndIncrement());
			}
			List<Integer> results = onVirtualThreads(dir, CALLERS, () -> partner.ready(next.getAndIncrement()));
			assertThat(results).hasSize(CALLERS).containsOnly(3);
			assertThat(partner.calls()).isEqualTo(3 * (ALL + SPEL_WARM_UP_CALLS));
		});
	}

	@Test
	void pooledWorkKeepsItsLimitAndLeavesNothingHeld(@TempDir Path dir) throws Exception {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			List<Integer> results = onVirtualThreads(dir, CALLERS, partner::pooled);
			assertThat(results).hasSize(CALLERS).containsOnly(1);
			assertThat(partner.mostInside()).isLessThanOrEqualTo(16);
			ConnectionPool<?> workers = context.getBean("workers", ConnectionPool.class);
			assertThat(workers.getStats().active()).isZero();
			assertThat(workers.getStats().pending()).isZero();
		});
	}

	@Test
	void hungPooledWorkEndsAtItsDeadline(@TempDir Path dir) throws Exception {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			int callers = 64;
			List<Long> tookMillis = onVirtualThreads(dir, callers, () -> {
				long start = System.nanoTime();
				try {
					partner.hangs();
					throw new AssertionError("the hung work returned");
				}
				catch (OperationTimeoutException ex) {
					return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				}
			});
			// Every caller is back at its 300 ms deadline, on a loaded machine within a second more.
			assertThat(tookMillis).hasSize(callers).allSatisfy((took) -> assertThat(took).isBetween(290L, 1_300L));
		});
	}

	/**
	 * Runs the call on {@link #WARM_UP} virtual threads, then on {@code count} more at once while
	 * JFR records pinned virtual threads, and fails if one pinned inside the starter. A class's
	 * initialization pins the threads that wait for it (JEP 491 lifted only {@code synchronized}'s
	 * pinning), whoever's code first touches the class: the warm-up initializes them unrecorded.
	 * @return the recorded calls' results
	 */
	private static <T> List<T> onVirtualThreads(Path dir, int count, Supplier<T> call) throws Exception {
		VirtualThreadTaskExecutor executor = new VirtualThreadTaskExecutor("vt-caller-");
		runAll(executor, WARM_UP, call);
		Path recorded = dir.resolve("pinned.jfr");
		List<T> results;
		try (Recording recording = new Recording()) {
			recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
			recording.start();
			results = runAll(executor, count, call);
			recording.stop();
			recording.dump(recorded);
		}
		assertThat(pinnedInsideTheStarter(recorded)).isEmpty();
		return results;
	}

	private static <T> List<T> runAll(VirtualThreadTaskExecutor executor, int count, Supplier<T> call)
			throws InterruptedException, TimeoutException {
		List<Future<T>> calls = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			calls.add(executor.submitCompletable(() -> {
				assertThat(isVirtual(Thread.currentThread())).isTrue();
				return call.get();
			}));
		}
		List<T> results = new ArrayList<>(count);
		for (Future<T> future : calls) {
			try {
				results.add(future.get(60, TimeUnit.SECONDS));
			}
			catch (ExecutionException ex) {
				throw new AssertionError("a virtual caller failed", ex.getCause());
			}
		}
		return results;
	}

	/**
	 * The pinned events whose pinning code is the starter's: the innermost frame that is the
	 * starter's or this test's (skipping the JDK and the libraries the starter calls) is the
	 * starter's. The test's own partner pins too at times, as when building its exception waited
	 * for a class's initialization under the retry advice (JDK 25, a loaded machine); the starter's
	 * frames are below it only because the advice called it. Loading a class is left out: it pins
	 * in the JDK's class loader whoever's code first needs the class.
	 */
	private static List<String> pinnedInsideTheStarter(Path recorded) throws Exception {
		List<String> pinned = new ArrayList<>();
		for (RecordedEvent event : RecordingFile.readAllEvents(recorded)) {
			List<String> frames = (event.getStackTrace() != null) ? event.getStackTrace()
				.getFrames()
				.stream()
				.map((frame) -> frame.getMethod().getType().getName() + "." + frame.getMethod().getName())
				.toList() : List.of();
			boolean loading = frames.stream()
				.anyMatch((frame) -> frame.startsWith("jdk.internal.loader.") || frame.equals("java.lang.ClassLoader.loadClass"));
			String pinningCode = frames.stream()
				.filter((frame) -> frame.startsWith("dev.resilience."))
				.findFirst()
				.orElse("");
			boolean starters = !pinningCode.isEmpty() && !pinningCode.startsWith(VirtualThreadsTests.class.getName());
			if (!loading && starters) {
				String operation = event.hasField("blockingOperation") ? event.getString("blockingOperation") : "pinned";
				pinned.add(operation + " at " + String.join(" < ", frames));
			}
		}
		return pinned;
	}

	/** {@code Thread.isVirtual()} is JDK 21 API; this test class compiles for 17. */
	private static boolean isVirtual(Thread thread) {
		try {
			return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	static class Partner {

		private final AtomicInteger calls = new AtomicInteger();

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger mostInside = new AtomicInteger();

		// Read through the proxy, whose own fields are empty.
		public int calls() {
			return this.calls.get();
		}

		public int inside() {
			return this.inside.get();
		}

		public int mostInside() {
			return this.mostInside.get();
		}

		private final ConcurrentHashMap<Integer, AtomicInteger> attempts = new ConcurrentHashMap<>();

		@RateLimited("window")
		public int windowed() {
			this.calls.incrementAndGet();
			return 1;
		}

		@RateLimited("permits")
		public int permitted() {
			return inside(() -> 1);
		}

		@Retryable("flaky")
		public int flaky(int caller) {
			this.calls.incrementAndGet();
			int attempt = this.attempts.computeIfAbsent(caller, (c) -> new AtomicInteger()).incrementAndGet();
			if (attempt < 3) {
				throw new IllegalStateException("attempt " + attempt);
			}
			return attempt;
		}

		@PollUntil(name = "ready", until = "#result >= 3")
		public int ready(int caller) {
			this.calls.incrementAndGet();
			return this.attempts.computeIfAbsent(caller, (c) -> new AtomicInteger()).incrementAndGet();
		}

		@WithConnection(pool = "workers")
		public int pooled() {
			return inside(() -> 1);
		}

		@WithConnection(pool = "hung")
		public int hangs() {
			// Ignores interrupts, as hung client code does: only the deadline brings the caller back.
			long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
			while (System.nanoTime() < until) {
				try {
					Thread.sleep(50);
				}
				catch (InterruptedException ex) {
					// keeps hanging
				}
			}
			return 0;
		}

		private int inside(Supplier<Integer> work) {
			this.calls.incrementAndGet();
			int now = this.inside.incrementAndGet();
			this.mostInside.accumulateAndGet(now, Math::max);
			try {
				Thread.sleep(2);
				return work.get();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			finally {
				this.inside.decrementAndGet();
			}
		}

	}

}
