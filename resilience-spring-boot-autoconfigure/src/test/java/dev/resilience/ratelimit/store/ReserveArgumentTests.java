package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@link RateLimiter#reserve} and {@link RateLimiter#reserveAsync} check {@code maxWait} as
 * {@code acquire} and {@code acquireAsync} do, rather than deciding with a wait no call can meet.
 */
class ReserveArgumentTests {

	private final ManualTicker ticker = new ManualTicker();

	private final RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "api",
			RateLimiterSettings.builder().window(3, Duration.ofSeconds(1)).build());

	@Test
	void reserveRejectsANegativeMaxWaitNamingIt() {
		// A negative wait used to reach the store, which rejected a call it could admit at once,
		// with a Retry-After of zero: the caller asking again got the same answer forever.
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.reserve("k", 1, Duration.ofMillis(-1)))
			.withMessageContaining("maxWait must not be negative but was -1ms");
		assertThat(this.limiter.inspect("k").getRemaining()).isEqualTo(3);
	}

	@Test
	void reserveAsyncFailsForANegativeMaxWaitInsteadOfRejectingTheCall() throws Exception {
		CompletableFuture<Reservation> reservation = this.limiter.reserveAsync("k", 1, Duration.ofMillis(-1));

		assertThat(catchThrowableOfType(ExecutionException.class, reservation::get))
			.cause()
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("maxWait must not be negative");
	}

	@Test
	void reserveRejectsANullMaxWaitNamingIt() {
		assertThatNullPointerException().isThrownBy(() -> this.limiter.reserve("k", 1, null)).withMessage("maxWait");
		assertThatNullPointerException().isThrownBy(() -> this.limiter.acquire("k", 1, null)).withMessage("maxWait");
		assertThatNullPointerException().isThrownBy(() -> this.limiter.awaitPermit("k", null)).withMessage("maxWait");
		assertThat(catchThrowableOfType(ExecutionException.class,
				() -> this.limiter.awaitPermitAsync("k", null, new ManualScheduler(this.ticker)).get()))
			.cause()
			.isInstanceOf(NullPointerException.class)
			.hasMessage("maxWait");
	}

}
