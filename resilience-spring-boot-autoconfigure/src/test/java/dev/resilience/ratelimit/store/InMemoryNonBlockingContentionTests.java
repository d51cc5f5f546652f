package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reactor threads (which must not block, BlockHound installed) all deciding on one key of a
 * bucket-only limiter: a decision that loses the bucket's compare-and-set to another thread steps
 * aside without parking or spin-wait hints, which BlockHound reports, and exactly the bucket's
 * tokens are admitted.
 */
class InMemoryNonBlockingContentionTests {

	private static final int THREADS = 4;

	private static final int CALLS_PER_THREAD = 20_000;

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
	}

	@Test
	void reactorThreadsOnOneKeyAdmitExactlyTheBucketWithoutBlocking() {
		int capacity = THREADS * CALLS_PER_THREAD / 2;
		RateLimiter limiter = TestLimiters.onManualClock(new ManualTicker(), "hot", RateLimiterSettings.builder()
			.tokenBucket(capacity, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.build());
		Scheduler nonBlocking = Schedulers.newParallel("hot-key", THREADS);
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
		AtomicInteger admitted = new AtomicInteger();
		AtomicInteger rejected = new AtomicInteger();
		// the callers start together, so that they contend from their first call; they spin until
		// then, as waiting on a latch would be a blocking call on a Reactor thread
		AtomicBoolean started = new AtomicBoolean();
		try {
			List<CompletableFuture<Void>> callers = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				boolean async = (t % 2 == 0);
				callers.add(Mono.<Void>fromRunnable(() -> {
					while (!started.get()) {
						// not started yet
					}
					for (int i = 0; i < CALLS_PER_THREAD; i++) {
						if (async ? admitAsync(limiter, scheduler) : limiter.tryAcquire("k", 1).isPermitted()) {
							admitted.incrementAndGet();
						}
						else {
							rejected.incrementAndGet();
						}
					}
				}).subscribeOn(nonBlocking).toFuture());
			}
			started.set(true);
			for (CompletableFuture<Void> caller : callers) {
				assertThat(caller).succeedsWithin(Duration.ofSeconds(60));
			}
			assertThat(admitted).hasValue(capacity);
			assertThat(rejected).hasValue(THREADS * CALLS_PER_THREAD - capacity);
		}
		finally {
			nonBlocking.dispose();
			scheduler.shutdownNow();
		}
	}

	/** Whether a call without a wait is admitted, asked as a reactive caller asks. */
	private static boolean admitAsync(RateLimiter limiter, ScheduledExecutorService scheduler) {
		CompletableFuture<Permit> permit = limiter.acquireAsync("k", 1, Duration.ZERO, scheduler);
		// decided on this thread: a bucket-only limiter in memory answers at once
		assertThat(permit).isDone();
		if (!permit.isCompletedExceptionally()) {
			permit.join().close();
			return true;
		}
		assertThat(permit).failsWithin(Duration.ZERO)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(RateLimitExceededException.class);
		return false;
	}

}
