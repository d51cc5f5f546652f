package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.observation.RecordingHandler;
import dev.resilience.observation.ResilienceObservations;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@code resilience.ratelimiter.wait} (docs/observability.md): a call that waited is observed from the
 * start of its wait until it is decided, with the meters' tags; a call admitted at once is not
 * observed at all.
 */
class RateLimiterObservationTests {

	private final ManualTicker ticker = new ManualTicker();

	private final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	private final RecordingHandler handler = RecordingHandler.on(this.observations);

	@Test
	void callsAdmittedAtOnceMakeNothingForAnObservation() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(10, Duration.ofSeconds(1)).build());

		limiter.acquire("k", 1, Duration.ofSeconds(5)).close();
		limiter.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler).join().close();

		assertThat(this.handler.offered()).isEmpty();
		assertThat(this.observations).doesNotHaveAnyObservation();
	}

	@Test
	void aCallThatWaitsIsObservedFromItsWaitUntilAdmittedAsAChildOfTheCallersObservation() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		limiter.acquire("k", 1, Duration.ZERO).close();
		Observation caller = Observation.start("caller", this.observations);

		try (Observation.Scope scope = caller.openScope()) {
			limiter.acquire("k", 1, Duration.ofSeconds(5)).close();
		}
		caller.stop();

		assertThat(this.ticker.sleeps()).containsExactly(Duration.ofSeconds(1));
		assertThat(this.observations).hasNumberOfObservationsEqualTo(2)
			.hasObservationWithNameEqualTo("resilience.ratelimiter.wait")
			.that()
			.hasContextualNameEqualTo("resilience.ratelimiter.wait api")
			.hasLowCardinalityKeyValue("name", "api")
			.hasLowCardinalityKeyValue("outcome", "waited")
			.hasLowCardinalityKeyValue("store", "memory")
			.hasParentObservationEqualTo(caller)
			.doesNotHaveError()
			.hasBeenStarted()
			.hasBeenStopped();
	}

	@Test
	void aWaitForAPermitThatEndsInARejectionIsObservedWithTheRejection() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build());
		Permit held = limiter.acquire("k", 1, Duration.ZERO);

		// The permit wait is bounded by real time: a short one.
		RateLimitExceededException rejection = catchThrowableOfType(RateLimitExceededException.class,
				() -> limiter.acquire("k", 1, Duration.ofMillis(50)));
		held.close();

		assertThat(this.observations).hasSingleObservationThat()
			.hasNameEqualTo("resilience.ratelimiter.wait")
			.hasLowCardinalityKeyValue("outcome", "rejected")
			.hasError(rejection)
			.hasBeenStopped();
	}

	@Test
	void anAsyncWaitStartsWhenScheduledAndStopsWhenAdmittedOnTheScheduler() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		limiter.acquire("k", 1, Duration.ZERO).close();
		Observation caller = Observation.start("caller", this.observations);

		CompletableFuture<Permit> waiting;
		try (Observation.Scope scope = caller.openScope()) {
			waiting = limiter.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler);
		}

		assertThat(waiting).isNotDone();
		assertThat(this.observations).hasObservationWithNameEqualTo("resilience.ratelimiter.wait")
			.that()
			.hasBeenStarted()
			.isNotStopped();
		this.scheduler.runAll();
		waiting.join().close();
		assertThat(this.observations).hasObservationWithNameEqualTo("resilience.ratelimiter.wait")
			.that()
			.hasLowCardinalityKeyValue("outcome", "waited")
			.hasParentObservationEqualTo(caller)
			.hasBeenStopped();
	}

	@Test
	void aWaitDecidedOnAnotherThreadStillHasTheCallersObservationAsParent() {
		// A remote store answers on its client's thread, where the caller's observation is not current.
		CompletableFuture<Void> answer = new CompletableFuture<>();
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.observations(ResilienceObservations.of(this.observations))
			.store("remote", (name, settings, ticker) -> new ForwardingStore("remote",
					new InMemoryRateLimitStore(name, settings, ticker)) {

				@Override
				public CompletableFuture<Reservation> reserveAsync(String key, long cost, long maxWaitNanos) {
					return answer.thenApply((done) -> reserve(key, cost, maxWaitNanos));
				}

			})
			.limiter("api", RateLimiterSettings.builder().store("remote").window(1, Duration.ofSeconds(1)).build())
			.build()
			.get("api");
		limiter.acquire("k", 1, Duration.ZERO).close();
		Observation caller = Observation.start("caller", this.observations);

		CompletableFuture<Permit> waiting;
		try (Observation.Scope scope = caller.openScope()) {
			waiting = limiter.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler);
		}
		answer.complete(null);
		this.scheduler.runAll();

		waiting.join().close();
		assertThat(this.observations).hasObservationWithNameEqualTo("resilience.ratelimiter.wait")
			.that()
			.hasLowCardinalityKeyValue("store", "remote")
			.hasParentObservationEqualTo(caller)
			.hasBeenStopped();
	}

	@Test
	void aCancelledAsyncWaitIsObservedAsCancelled() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		limiter.acquire("k", 1, Duration.ZERO).close();

		limiter.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler).cancel(false);

		assertThat(this.observations).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("outcome", "cancelled")
			.doesNotHaveError()
			.hasBeenStopped();
	}

	@Test
	void aCallThroughTwoLimitersIsObservedOnceNamedAfterTheLimiterItWaitsFor() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.observations(ResilienceObservations.of(this.observations))
			.limiter("global", RateLimiterSettings.builder().window(10, Duration.ofSeconds(1)).build())
			.limiter("user", RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build())
			.build();
		registry.get("user").acquire("k", 1, Duration.ZERO).close();

		registry.acquireAll(java.util.List.of(new RateLimitRequest(registry.get("global"), "", 1, Duration.ofSeconds(5)),
				new RateLimitRequest(registry.get("user"), "k", 1, Duration.ofSeconds(5))))
			.close();

		assertThat(this.observations).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("name", "user")
			.hasLowCardinalityKeyValue("outcome", "waited")
			.hasBeenStopped();
	}

	private RateLimiter limiter(RateLimiterSettings settings) {
		return StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.observations(ResilienceObservations.of(this.observations))
			.limiter("api", settings)
			.build()
			.get("api");
	}

}
