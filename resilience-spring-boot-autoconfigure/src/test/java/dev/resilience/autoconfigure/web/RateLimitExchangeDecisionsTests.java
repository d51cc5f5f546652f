package dev.resilience.autoconfigure.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.util.context.Context;

import org.springframework.http.HttpHeaders;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.ratelimit.RateLimitDecisionRecorder;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitExchangeDecisions} and {@link RateLimitWebFluxListener}: what an
 * exchange's recorder keeps, and how a decision taken outside Reactor reaches it.
 */
class RateLimitExchangeDecisionsTests {

	private final RateLimitWebFluxListener listener = new RateLimitWebFluxListener();

	private final RateLimiter paced = StoreRateLimiterRegistry.builder()
		.ticker(new TestTicker())
		.listener(this.listener)
		.limiter("paced",
				RateLimiterSettings.builder().window(3, Duration.ofSeconds(5)).window(10, Duration.ofMinutes(1)).build())
		.limiter("concurrent", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
		.build()
		.get("paced");

	private final RateLimitExchangeDecisions decisions = RateLimitExchangeDecisions
		.of(MockServerWebExchange.from(MockServerHttpRequest.get("/")));

	private final ExecutorService executor = Executors.newFixedThreadPool(16);

	@AfterEach
	void shutDown() {
		this.executor.shutdownNow();
	}

	@Test
	void ofShouldGiveOneRecorderPerExchange() {
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/"));
		assertThat(RateLimitExchangeDecisions.of(exchange)).isSameAs(RateLimitExchangeDecisions.of(exchange))
			.isNotSameAs(this.decisions);
	}

	@Test
	void recordShouldKeepTheLatestStatePerPolicyAndIgnoreRejections() {
		for (int i = 0; i < 4; i++) {
			this.decisions.record(this.paced.tryAcquire("key", 1));
		}
		assertThat(this.decisions.items().policy()).isEqualTo("\"paced-5s\";q=3;w=5, \"paced-60s\";q=10;w=60");
		assertThat(this.decisions.items().rateLimit()).isEqualTo("\"paced-5s\";r=0;t=5, \"paced-60s\";r=7;t=60");
	}

	@Test
	void recordShouldIgnoreDecisionsWithoutQuotas() {
		this.decisions.record(new RateLimitDecision("concurrent", "key", true, Duration.ZERO, Duration.ZERO, List.of(), 1, 1));
		assertThat(this.decisions.items().isEmpty()).isTrue();
	}

	@Test
	void writeToShouldSetBothFieldsOnceSomethingWasRecorded() {
		HttpHeaders headers = new HttpHeaders();
		this.decisions.writeTo(headers);
		assertThat(headers.isEmpty()).isTrue();
		this.decisions.record(this.paced.tryAcquire("key", 1));
		headers.set(RateLimitHeaders.RATE_LIMIT, "stale");
		this.decisions.writeTo(headers);
		assertThat(headers.get(RateLimitHeaders.POLICY)).containsExactly("\"paced-5s\";q=3;w=5, \"paced-60s\";q=10;w=60");
		assertThat(headers.get(RateLimitHeaders.RATE_LIMIT)).containsExactly("\"paced-5s\";r=2;t=5, \"paced-60s\";r=9;t=60");
	}

	@Test
	void listenerShouldRecordOnlyWhileTheRecorderIsCurrent() {
		this.paced.tryAcquire("key", 1);
		assertThat(this.decisions.items().isEmpty()).isTrue();
		RateLimitExchangeDecisions.runWith(this.decisions, () -> this.paced.tryAcquire("key", 1));
		assertThat(RateLimitExchangeDecisions.current()).isNull();
		this.paced.tryAcquire("key", 1);
		assertThat(this.decisions.items().rateLimit()).isEqualTo("\"paced-5s\";r=1;t=5, \"paced-60s\";r=8;t=60");
	}

	@Test
	void runWithShouldRestoreTheOuterRecorder() {
		RateLimitDecisionRecorder outer = (decision) -> {
		};
		RateLimitExchangeDecisions.runWith(outer, () -> {
			RateLimitExchangeDecisions.runWith(this.decisions, () -> this.paced.tryAcquire("key", 1));
			assertThat(RateLimitExchangeDecisions.current()).isSameAs(outer);
		});
		assertThat(RateLimitExchangeDecisions.current()).isNull();
		assertThat(this.decisions.items().isEmpty()).isFalse();
	}

	@Test
	void contextPropagationShouldCarryTheRecorderFromAReactorContextToAContinuation() throws Exception {
		ContextSnapshot snapshot = ContextSnapshotFactory.builder()
			.build()
			.captureFrom(Context.of(RateLimitDecisionRecorder.class, this.decisions));
		this.executor.submit(snapshot.wrap(() -> this.paced.tryAcquire("key", 1))).get();
		assertThat(this.decisions.items().rateLimit()).isEqualTo("\"paced-5s\";r=2;t=5, \"paced-60s\";r=9;t=60");
	}

	@Test
	void contextPropagationShouldCarryTheCurrentRecorderToAContinuation() throws Exception {
		CompletableFuture<ContextSnapshot> captured = new CompletableFuture<>();
		RateLimitExchangeDecisions.runWith(this.decisions,
				() -> captured.complete(ContextSnapshotFactory.builder().build().captureAll()));
		this.executor.submit(captured.get().wrap(() -> this.paced.tryAcquire("key", 1))).get();
		assertThat(this.decisions.items().isEmpty()).isFalse();
		// The continuation's thread does not keep it.
		this.executor.submit(() -> this.paced.tryAcquire("other", 1)).get();
		assertThat(this.decisions.items().rateLimit()).isEqualTo("\"paced-5s\";r=2;t=5, \"paced-60s\";r=9;t=60");
	}

	@Test
	void recordFromManyThreadsShouldKeepOneItemPerPolicy() throws Exception {
		List<Future<?>> calls = new ArrayList<>();
		for (int i = 0; i < 16; i++) {
			String key = "key-" + i;
			calls.add(this.executor.submit(() -> {
				for (int j = 0; j < 3; j++) {
					this.decisions.record(this.paced.tryAcquire(key, 1));
					HttpHeaders headers = new HttpHeaders();
					this.decisions.writeTo(headers);
					assertThat(headers.getFirst(RateLimitHeaders.RATE_LIMIT)).startsWith("\"paced-5s\";r=");
				}
			}));
		}
		for (Future<?> call : calls) {
			call.get();
		}
		assertThat(this.decisions.items().rateLimit()).isEqualTo("\"paced-5s\";r=0;t=5, \"paced-60s\";r=7;t=60");
	}

}
