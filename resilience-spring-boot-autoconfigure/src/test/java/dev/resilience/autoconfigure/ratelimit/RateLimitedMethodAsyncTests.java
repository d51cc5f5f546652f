package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;

/** {@link RateLimitedMethod#acquireAsync}: the blocking form's admission, every outcome through the future. */
class RateLimitedMethodAsyncTests {

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

	private final RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
		.limiter("db", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
		.limiter("global", RateLimiterSettings.builder().window(100, Duration.ofSeconds(1)).build())
		.build();

	private final RateLimitedMethods methods = new RateLimitedMethods(this.registry, null);

	@AfterEach
	void shutDown() throws InterruptedException {
		this.scheduler.shutdownNow();
		this.scheduler.awaitTermination(10, TimeUnit.SECONDS);
	}

	@Test
	void acquireAsyncHoldsThePermitUntilItIsClosed() throws Exception {
		RateLimitedMethod method = method("fetch");
		Permit permit = method.acquireAsync(new Object[] { "alice" }, this.scheduler).get(10, TimeUnit.SECONDS);

		assertThat(cause(method.acquireAsync(new Object[] { "alice" }, this.scheduler)))
			.isInstanceOf(RateLimitExceededException.class);
		permit.closeAsync().get(10, TimeUnit.SECONDS);
		method.acquireAsync(new Object[] { "alice" }, this.scheduler).get(10, TimeUnit.SECONDS).close();
		assertThat(this.registry.get("db").inspect("alice").getInFlight()).isZero();
	}

	@Test
	void acquireAsyncOfStackedLimitersTakesEachOnce() throws Exception {
		RateLimitedMethod method = method("fetchStacked");

		Permit permit = method.acquireAsync(new Object[] { "alice" }, this.scheduler).get(10, TimeUnit.SECONDS);

		assertThat(permit.getDecisions()).hasSize(2);
		assertThat(this.registry.get("global").inspect("").getRemaining()).isEqualTo(99);
		permit.close();
		assertThat(this.registry.get("db").inspect("alice").getInFlight()).isZero();
	}

	@Test
	void aKeyEvaluatingToNullFailsTheFutureWithTheBlockingFormsException() {
		for (String name : new String[] { "fetch", "fetchStacked" }) {
			RateLimitedMethod method = method(name);
			Throwable blocking = catchThrowable(() -> method.acquire(new Object[] { null }));
			assertThat(blocking).isInstanceOf(IllegalArgumentException.class);

			CompletableFuture<Permit> failed = method.acquireAsync(new Object[] { null }, this.scheduler);

			assertThatIllegalArgumentException().isThrownBy(() -> {
				throw cause(failed);
			}).withMessage(blocking.getMessage());
		}
	}

	@Test
	void aMethodHoldsPermitsWhenOneOfItsLimitersHasMaxConcurrent() {
		assertThat(method("fetch").holdsPermits()).isTrue();
		assertThat(method("fetchStacked").holdsPermits()).isTrue();
		assertThat(method("fetchGlobal").holdsPermits()).isFalse();
	}

	private RateLimitedMethod method(String name) {
		try {
			return this.methods.get(Client.class.getMethod(name, String.class), Client.class);
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static Throwable cause(CompletableFuture<?> future) {
		try {
			future.get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			return (ex.getCause() != null && !(ex instanceof CompletionException)) ? ex.getCause() : ex;
		}
		throw new AssertionError("completed normally");
	}

	static class Client {

		@RateLimited(name = "db", key = "#id")
		public String fetch(String id) {
			return id;
		}

		@RateLimited(name = "db", key = "#id")
		@RateLimited(name = "global")
		public String fetchStacked(String id) {
			return id;
		}

		@RateLimited(name = "global")
		public String fetchGlobal(String id) {
			return id;
		}

	}

}
