package dev.resilience.ratelimit.store;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitDecision.Quota;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Waiting: a call with max-wait reserves the earliest slot, first come first served, or is rejected at once. */
class ReservationTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void acquireReservesEarliestSlotAndSleepsExactlyUntilIt() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		Permit first = limiter.acquire("k", 1, Duration.ofSeconds(5));
		assertThat(first.getWaited()).isZero();
		assertThat(this.ticker.sleeps()).isEmpty();
		Permit second = limiter.acquire("k", 1, Duration.ofSeconds(5));
		assertThat(second.getWaited()).isEqualTo(Duration.ofSeconds(1));
		assertThat(second.getDecisions()).singleElement()
			.satisfies((decision) -> assertThat(decision.getWait()).isEqualTo(Duration.ofSeconds(1)));
		assertThat(this.ticker.read()).isEqualTo(Duration.ofSeconds(1).toNanos());
		limiter.acquire("k", 1, Duration.ofSeconds(5));
		assertThat(this.ticker.sleeps()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
		assertThat(this.ticker.read()).isEqualTo(Duration.ofSeconds(2).toNanos());
	}

	@Test
	void waitedIsTheTimeSpentWaitingWhateverTheTickerReads() {
		this.ticker.set(Duration.ofHours(3));
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		assertThat(limiter.acquire("k", 1, Duration.ofSeconds(5)).getWaited()).isZero();
		assertThat(limiter.acquire("k", 1, Duration.ofSeconds(5)).getWaited()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.ticker.read()).isEqualTo(Duration.ofHours(3).plusSeconds(1).toNanos());
	}

	@Test
	void windowReservationsAreFirstComeFirstServed() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		assertThat(reserveWait(limiter, Duration.ofSeconds(5))).isZero();
		assertThat(reserveWait(limiter, Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(1));
		assertThat(reserveWait(limiter, Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(2));
		this.ticker.set(Duration.ofMillis(1500));
		RateLimitDecision meanwhile = limiter.tryAcquire("k", 1);
		assertThat(meanwhile.isPermitted()).isFalse();
		assertThat(meanwhile.getRetryAfter()).isEqualTo(Duration.ofMillis(1500));
	}

	@Test
	void bucketReservationsAreFirstComeFirstServed() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofMillis(100), RefillStrategy.GREEDY)
			.build());
		assertThat(reserveWait(limiter, Duration.ofSeconds(1))).isZero();
		assertThat(reserveWait(limiter, Duration.ofSeconds(1))).isEqualTo(Duration.ofMillis(100));
		assertThat(reserveWait(limiter, Duration.ofSeconds(1))).isEqualTo(Duration.ofMillis(200));
		this.ticker.set(Duration.ofMillis(50));
		RateLimitDecision meanwhile = limiter.tryAcquire("k", 1);
		assertThat(meanwhile.isPermitted()).isFalse();
		assertThat(meanwhile.getRetryAfter()).isEqualTo(Duration.ofMillis(250));
	}

	@Test
	void reservationWaitsForTheLatestSlotOfAllConstraints() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofMillis(100), RefillStrategy.GREEDY)
			.window(2, Duration.ofSeconds(1))
			.build());
		assertThat(reserveWait(limiter, Duration.ofSeconds(5))).isZero();
		assertThat(reserveWait(limiter, Duration.ofSeconds(5))).isEqualTo(Duration.ofMillis(100));
		Reservation third = limiter.reserve("k", 1, Duration.ofSeconds(5));
		assertThat(third.getDecision().getWait()).isEqualTo(Duration.ofSeconds(1));
		assertThat(third.getDecision().getQuotas()).containsExactly(
				new Quota(Quota.Type.TOKEN_BUCKET, 1, Duration.ofMillis(100), 0, Duration.ofMillis(100)),
				new Quota(Quota.Type.WINDOW, 2, Duration.ofSeconds(1), 0, Duration.ofMillis(100)));
	}

	@Test
	void slotBeyondMaxWaitIsRejectedAtOnceAndReservesNothing() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		limiter.acquire("k", 1, Duration.ZERO);
		RateLimitDecision before = limiter.inspect("k");
		RateLimitExceededException ex = catchThrowableOfType(RateLimitExceededException.class,
				() -> limiter.acquire("k", 1, Duration.ofMillis(999)));
		assertThat(ex.getLimiterName()).isEqualTo("api");
		assertThat(ex.getKey()).isEqualTo("k");
		assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.ticker.sleeps()).isEmpty();
		assertThat(this.ticker.read()).isZero();
		assertThat(limiter.inspect("k").getQuotas()).isEqualTo(before.getQuotas());
		// had the rejected call reserved the slot at 1s, this one would wait 2s
		assertThat(limiter.acquire("k", 1, Duration.ofSeconds(1)).getWaited()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void reserveBeyondMaxWaitReturnsRejectionWithExactRetryAfter() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofMillis(100), RefillStrategy.GREEDY)
			.build());
		limiter.reserve("k", 1, Duration.ZERO);
		RateLimitDecision rejected = limiter.reserve("k", 1, Duration.ofMillis(100).minusNanos(1))
			.getDecision();
		assertThat(rejected.isPermitted()).isFalse();
		assertThat(rejected.getRetryAfter()).isEqualTo(Duration.ofMillis(100));
		assertThat(reserveWait(limiter, Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(100));
	}

	@Test
	void acquireWithoutMaxWaitUsesTheLimitersMaxWait() {
		RateLimiter patient = limiter(RateLimiterSettings.builder()
			.window(1, Duration.ofSeconds(1))
			.maxWait(Duration.ofSeconds(1))
			.build());
		patient.acquire("k", 1);
		assertThat(patient.acquire("k", 1).getWaited()).isEqualTo(Duration.ofSeconds(1));
		RateLimiter impatient = limiter(RateLimiterSettings.builder()
			.window(1, Duration.ofSeconds(1))
			.maxWait(Duration.ofMillis(999))
			.build());
		impatient.acquire("k", 1);
		assertThat(catchThrowableOfType(RateLimitExceededException.class, () -> impatient.acquire("k", 1))
			.getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
	}

	private Duration reserveWait(RateLimiter limiter, Duration maxWait) {
		RateLimitDecision decision = limiter.reserve("k", 1, maxWait).getDecision();
		assertThat(decision.isPermitted()).isTrue();
		return decision.getWait();
	}

	private RateLimiter limiter(RateLimiterSettings settings) {
		return TestLimiters.onManualClock(this.ticker, "api", settings);
	}

}
