package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A call over several limiters whose give-backs fail: every reservation is still given back, and
 * the first failure is thrown with the others suppressed in it.
 */
class GiveBackFailureTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void aRejectionWhoseGiveBacksFailThrowsTheFirstFailureWithTheOthersSuppressed() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.store("sticky", failingAfter(Operation.CANCEL, "cannot give back to "))
			.limiter("a", RateLimiterSettings.builder().store("sticky").window(5, Duration.ofSeconds(1)).build())
			.limiter("b", RateLimiterSettings.builder().store("sticky").window(5, Duration.ofSeconds(1)).build())
			.limiter("c", RateLimiterSettings.builder().window(1, Duration.ofMinutes(1)).build())
			.build();
		registry.get("c").acquire("k", 1, Duration.ZERO);

		IllegalStateException failure = catchThrowableOfType(IllegalStateException.class,
				() -> registry.acquireAll(List.of(new RateLimitRequest(registry.get("a"), "k", 1, Duration.ZERO),
						new RateLimitRequest(registry.get("b"), "k", 1, Duration.ZERO),
						new RateLimitRequest(registry.get("c"), "k", 1, Duration.ZERO))));

		assertThat(failure).hasMessage("cannot give back to a");
		assertThat(failure.getSuppressed()).singleElement()
			.satisfies((suppressed) -> assertThat(suppressed).hasMessage("cannot give back to b"));
		// both were given back all the same
		assertThat(registry.get("a").inspect("k").getRemaining()).isEqualTo(5);
		assertThat(registry.get("b").inspect("k").getRemaining()).isEqualTo(5);
	}

	@Test
	void closingAPermitWhoseFirstReleaseFailsStillReturnsTheOtherPermits() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.store("sticky", failingAfter(Operation.RELEASE, "cannot return the permit to "))
			.limiter("a", RateLimiterSettings.builder().store("sticky").maxConcurrent(1, Duration.ofMinutes(1)).build())
			.limiter("b", RateLimiterSettings.builder().store("sticky").maxConcurrent(1, Duration.ofMinutes(1)).build())
			.limiter("c", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
			.build();
		Permit permit = registry.acquireAll(List.of(new RateLimitRequest(registry.get("a"), "k", 1, Duration.ZERO),
				new RateLimitRequest(registry.get("b"), "k", 1, Duration.ZERO),
				new RateLimitRequest(registry.get("c"), "k", 1, Duration.ZERO)));

		IllegalStateException failure = catchThrowableOfType(IllegalStateException.class, permit::close);

		// The first failure used to end close() at once: b's and c's permits stayed held until
		// their leases expired a minute later, and closing again did nothing.
		assertThat(registry.get("b").inspect("k").getInFlight()).isZero();
		assertThat(registry.get("c").inspect("k").getInFlight()).isZero();
		assertThat(failure).hasMessage("cannot return the permit to a");
		assertThat(failure.getSuppressed()).singleElement()
			.satisfies((suppressed) -> assertThat(suppressed).hasMessage("cannot return the permit to b"));
	}

	/** What a reservation of {@link #failingAfter} fails at. */
	private enum Operation {

		CANCEL, RELEASE

	}

	/**
	 * An in-memory store whose reservations do their work, then throw at one operation, naming the
	 * limiter after {@code message}.
	 */
	private static RateLimitStoreFactory failingAfter(Operation failing, String message) {
		return (name, settings, ticker) -> new ForwardingStore("sticky", new InMemoryRateLimitStore(name, settings, ticker)) {

			@Override
			public Reservation reserve(String key, long cost, long maxWaitNanos) {
				Reservation reservation = super.reserve(key, cost, maxWaitNanos);
				return new Reservation() {

					@Override
					public RateLimitDecision getDecision() {
						return reservation.getDecision();
					}

					@Override
					public void cancel() {
						reservation.cancel();
						failIf(Operation.CANCEL);
					}

					@Override
					public void release() {
						reservation.release();
						failIf(Operation.RELEASE);
					}

					private void failIf(Operation operation) {
						if (operation == failing) {
							throw new IllegalStateException(message + name);
						}
					}

				};
			}

		};
	}

}
