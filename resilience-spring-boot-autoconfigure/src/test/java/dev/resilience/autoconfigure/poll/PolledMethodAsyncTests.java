package dev.resilience.autoconfigure.poll;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.util.ReflectionUtils;

import dev.resilience.ManualTicker;
import dev.resilience.ManualScheduler;
import dev.resilience.autoconfigure.support.ReturnKind;
import dev.resilience.autoconfigure.support.ProposedSettings;
import dev.resilience.poll.PollExhaustedException;
import dev.resilience.poll.PollHistory;
import dev.resilience.poll.PollSettings;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.poll.PollUntil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** {@link PolledMethod#callAsync}: the method's {@code until} and settings over stages. */
class PolledMethodAsyncTests {

	private final ManualTicker ticker = new ManualTicker(2_000_000_000L);

	private final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	private final List<String> ended = new ArrayList<>();

	@Test
	void untilReadsTheStagesValueAndTheArguments() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<@Nullable Object> future = bind("status").callAsync(
				() -> CompletableFuture.completedFuture((calls.incrementAndGet() < 3) ? "PENDING" : "DONE"),
				new Object[] { "DONE" }, this.scheduler);
		assertThat(future).isNotDone();
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("DONE");
		assertThat(this.scheduler.delays()).containsExactly(Duration.ofMillis(5), Duration.ofMillis(5));
		assertThat(this.ended).containsExactly("export fulfilled after 3");
	}

	@Test
	void exhaustionFailsWithTheHistory() throws Exception {
		CompletableFuture<@Nullable Object> future = bind("status").callAsync(
				() -> CompletableFuture.completedFuture("PENDING"), new Object[] { "DONE" }, this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedExceptionally();
		Throwable failure = catchThrowableOfType(ExecutionException.class, future::get).getCause();
		assertThat(failure).isInstanceOf(PollExhaustedException.class)
			.hasMessage("Tried 3 times over 10ms, but condition was never met");
		assertThat(this.ended).containsExactly("export exhausted after 3");
	}

	private PolledMethod bind(String name) {
		PollSettingsRegistry registry = PollSettingsRegistry.of(Map.of("export", PollSettings.builder()
			.maxAttempts(3)
			.delay(Duration.ofMillis(5))
			.backoff(dev.resilience.retry.Backoff.FIXED)
			.build()));
		Method method = ReflectionUtils.findMethod(Client.class, name, String.class);
		PolledMethod bound = new PollUntilBinder(registry, this.ticker, (nanos) -> {
			throw new AssertionError("never sleeps");
		}, List.of(this::record), null).bind(method, Client.class, ReturnKind.of(method, PollUntil.class), ProposedSettings.NONE);
		assertThat(bound).isNotNull();
		return bound;
	}

	private void record(String name, PollHistory<?> history) {
		this.ended.add(name + " " + (history.fulfilled() ? "fulfilled" : "exhausted") + " after "
				+ history.attempts().size());
	}

	static class Client {

		@PollUntil(name = "export", until = "#result == #p0")
		public String status(String expected) {
			throw new UnsupportedOperationException("attempts are supplied by the test");
		}

	}

	private static final class Duration {

		static java.time.Duration ofMillis(long millis) {
			return java.time.Duration.ofMillis(millis);
		}

	}

}
