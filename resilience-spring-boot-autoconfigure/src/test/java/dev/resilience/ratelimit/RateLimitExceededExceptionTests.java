package dev.resilience.ratelimit;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimitDecision.Quota;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimitExceededException} read back after Java serialization keeps its whole decision
 * and whether its message names the key; descriptions of decisions and requests leave the key out.
 */
class RateLimitExceededExceptionTests {

	@Test
	void aDeserializedExceptionKeepsTheQuotasAndTheCallsInFlight() throws Exception {
		RateLimitDecision decision = new RateLimitDecision("api", "alice", false, Duration.ZERO, Duration.ofSeconds(2),
				true, List.of(new Quota(Quota.Type.TOKEN_BUCKET, 20, Duration.ofSeconds(1), 3, Duration.ofMillis(50)),
						new Quota(Quota.Type.WINDOW, 10, Duration.ofSeconds(5), 1, Duration.ofSeconds(2))),
				4, 4);

		RateLimitExceededException copy = roundTrip(new RateLimitExceededException(decision, false));

		RateLimitDecision restored = copy.getDecision();
		assertThat(copy.getDecision()).isSameAs(restored);
		assertThat(restored.getQuotas()).isEqualTo(decision.getQuotas());
		assertThat(restored.getRemaining()).isZero();
		assertThat(restored.getLimit()).isEqualTo(4);
		assertThat(restored.isConcurrencyLimited()).isTrue();
		assertThat(restored.getInFlight()).isEqualTo(4);
		assertThat(restored.getMaxConcurrent()).isEqualTo(4);
		assertThat(restored).hasToString(decision.toString());
		assertThat(copy.getLimiterName()).isEqualTo("api");
		assertThat(copy.getKey()).isEqualTo("alice");
		assertThat(copy.getRetryAfter()).isEqualTo(Duration.ofSeconds(2));
		assertThat(copy.getMessage()).isEqualTo(new RateLimitExceededException(decision, false).getMessage());
	}

	@Test
	void aDeserializedRejectionOfAStoreKeepsTheQuotasItComputesWhenRead() throws Exception {
		RateLimiterSettings settings = RateLimiterSettings.builder().window(1, Duration.ofSeconds(2)).build();
		RateLimitDecision decision = RateLimitDecision.of("api", "alice", false, 0, Duration.ofSeconds(2).toNanos(),
				false, 0, settings, 0, null, new long[] { 0, Duration.ofSeconds(2).toNanos() });

		RateLimitDecision restored = roundTrip(new RateLimitExceededException(decision, false)).getDecision();

		assertThat(restored.getQuotas()).containsExactly(
				new Quota(Quota.Type.WINDOW, 1, Duration.ofSeconds(2), 0, Duration.ofSeconds(2)));
		assertThat(restored.getRemaining()).isZero();
		assertThat(restored.getLimit()).isOne();
	}

	@Test
	void aDeserializedPausedRejectionStaysPaused() throws Exception {
		RateLimiterSettings settings = RateLimiterSettings.builder().window(10, Duration.ofSeconds(5)).build();
		long threeSeconds = Duration.ofSeconds(3).toNanos();
		RateLimitDecision decision = RateLimitDecision.paused("api", "alice", settings, threeSeconds, threeSeconds);

		RateLimitDecision restored = roundTrip(new RateLimitExceededException(decision)).getDecision();

		assertThat(restored.isPaused()).isTrue();
		assertThat(restored.getPause()).isEqualTo(Duration.ofSeconds(3));
		assertThat(restored.getQuotas()).isEqualTo(decision.getQuotas());
		assertThat(restored.getRemaining()).isEqualTo(decision.getRemaining());
		assertThat(restored).hasToString(decision.toString());
	}

	@Test
	void aDeserializedExceptionNamesItsKeyInTheMessageOnlyIfTheOriginalDid() throws Exception {
		RateLimitDecision decision = new RateLimitDecision("api", "alice", false, Duration.ZERO, Duration.ofSeconds(2),
				false, List.of(), 0, 0);

		RateLimitExceededException hidden = roundTrip(new RateLimitExceededException(decision, false));
		RateLimitExceededException named = roundTrip(new RateLimitExceededException(decision, false, true));

		assertThat(hidden).hasMessage("Rate limiter 'api' rejected the call; retry after 2s");
		assertThat(hidden.getKey()).isEqualTo("alice");
		assertThat(named).hasMessage("Rate limiter 'api' rejected the call for key 'alice'; retry after 2s");
	}

	@Test
	void describingADecisionOrARequestLeavesTheKeyOut() {
		RateLimitDecision decision = new RateLimitDecision("api", "sk_live_alice", false, Duration.ZERO,
				Duration.ofSeconds(2), false, List.of(), 0, 0);
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.limiter("api", RateLimiterSettings.builder().window(5, Duration.ofSeconds(1)).build())
			.build()
			.get("api");
		RateLimitRequest request = new RateLimitRequest(limiter, "sk_live_alice", 2, Duration.ofSeconds(1));

		assertThat(decision.toString()).startsWith("RateLimitDecision[limiter=api, permitted=false")
			.doesNotContain("sk_live_alice");
		assertThat(Reservation.settled(decision).toString()).doesNotContain("sk_live_alice");
		assertThat(request).hasToString("RateLimitRequest[limiter=api, cost=2, maxWait=PT1S]");
		assertThat(request.key()).isEqualTo("sk_live_alice");
	}

	private static RateLimitExceededException roundTrip(RateLimitExceededException exception) throws Exception {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
			out.writeObject(exception);
		}
		try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
			return (RateLimitExceededException) in.readObject();
		}
	}

}
