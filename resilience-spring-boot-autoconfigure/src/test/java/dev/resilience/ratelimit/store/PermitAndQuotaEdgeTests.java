package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory store's estimate of when a permit is back, the waiters a give-back wakes, and the
 * quota that names the limit when two are equally tight.
 */
class PermitAndQuotaEdgeTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void aHolderWhoHasHeldItsPermitForTheTypicalHoldTimeIsExpectedBackAfterAnotherOne() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build());
		Reservation first = store.reserve("k", 1, 0);
		this.ticker.set(Duration.ofSeconds(2));
		first.release(); // permits are held 2 s
		store.reserve("k", 1, 0);

		// held 1 s of the typical 2 s: back in 1 s
		this.ticker.set(Duration.ofSeconds(3));
		assertThat(store.reserve("k", 1, 0).getDecision().getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
		// held exactly the typical 2 s: overdue from now on, so another typical hold time
		this.ticker.set(Duration.ofSeconds(4));
		RateLimitDecision rejected = store.reserve("k", 1, 0).getDecision();
		assertThat(rejected.isConcurrencyLimited()).isTrue();
		assertThat(rejected.getRetryAfter()).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void givingBackACallWhoseLeaseHadExpiredWakesNoWaiter() {
		ManualScheduler scheduler = new ManualScheduler(this.ticker);
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofSeconds(5)).build());
		Reservation expired = store.reserve("k", 1, 0);
		this.ticker.set(Duration.ofSeconds(1));
		CompletableFuture<Void> waiter = store.awaitPermitAsync("k", Duration.ofSeconds(10).toNanos(), scheduler);
		this.ticker.set(Duration.ofSeconds(5));
		// the expired lease's permit is taken by another call
		assertThat(store.reserve("k", 1, 0).getDecision().isPermitted()).isTrue();

		expired.cancel();

		// no permit came back: the only one is held
		assertThat(waiter).isNotDone();
		assertThat(store.inspect("k").getInFlight()).isOne();
	}

	@Test
	void whenTwoQuotasAreEquallyTightTheOneListedFirstNamesTheLimit() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(10, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(15, Duration.ofHours(1))
			.build());
		store.reserve("k", 10, 0);
		this.ticker.set(Duration.ofSeconds(4));
		RateLimitDecision bucketTighter = store.inspect("k");
		assertThat(bucketTighter.getRemaining()).isEqualTo(4);
		assertThat(bucketTighter.getLimit()).isEqualTo(10);

		this.ticker.set(Duration.ofSeconds(5));
		RateLimitDecision tie = store.inspect("k");

		assertThat(tie.getQuotas()).extracting(RateLimitDecision.Quota::remaining).containsExactly(5L, 5L);
		assertThat(tie.getRemaining()).isEqualTo(5);
		assertThat(tie.getLimit()).isEqualTo(10);

		this.ticker.set(Duration.ofSeconds(6));
		assertThat(store.inspect("k").getLimit()).isEqualTo(15);
	}

	private InMemoryRateLimitStore store(RateLimiterSettings settings) {
		return new InMemoryRateLimitStore("api", settings, this.ticker);
	}

}
