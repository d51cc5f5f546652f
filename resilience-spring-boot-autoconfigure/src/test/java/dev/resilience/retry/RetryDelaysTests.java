package dev.resilience.retry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.function.DoubleSupplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The delay sequence of a {@link RetryPolicy}, value by value for every backoff and, with a fixed
 * random source, every jitter; and the bounds of each jitter over many random draws.
 */
class RetryDelaysTests {

	private static final DoubleSupplier HALF = () -> 0.5;

	@Test
	void fixedWithoutJitter() {
		assertThat(delays(policy(Backoff.FIXED, Jitter.NONE).maxRetries(4), HALF)).containsExactly(ms(100), ms(100),
				ms(100), ms(100));
	}

	@Test
	void linearWithoutJitter() {
		assertThat(delays(policy(Backoff.LINEAR, Jitter.NONE).maxRetries(4), HALF)).containsExactly(ms(100), ms(200),
				ms(300), ms(400));
	}

	@Test
	void exponentialWithoutJitterIsCappedAtMaxDelay() {
		assertThat(delays(policy(Backoff.EXPONENTIAL, Jitter.NONE).maxRetries(6).maxDelay(ms(1000)), HALF))
			.containsExactly(ms(100), ms(200), ms(400), ms(800), ms(1000), ms(1000));
	}

	@Test
	void exponentialWithAMultiplierOfThree() {
		assertThat(delays(policy(Backoff.EXPONENTIAL, Jitter.NONE).multiplier(3).maxRetries(3), HALF))
			.containsExactly(ms(100), ms(300), ms(900));
	}

	@Test
	void fullJitterScalesTheDelayByTheRandomNumber() {
		DoubleSupplier random = sequence(0.5, 0.25, 0.0, 0.75);
		assertThat(delays(policy(Backoff.EXPONENTIAL, Jitter.FULL).maxRetries(4), random)).containsExactly(ms(50),
				ms(50), ms(0), ms(600));
	}

	@Test
	void equalJitterKeepsHalfTheDelay() {
		DoubleSupplier random = sequence(0.5, 0.25, 0.0, 0.75);
		assertThat(delays(policy(Backoff.EXPONENTIAL, Jitter.EQUAL).maxRetries(4), random)).containsExactly(ms(75),
				ms(125), ms(200), ms(700));
	}

	@Test
	void decorrelatedJitterGrowsFromThePreviousDelayAndIsCapped() {
		// min(cap, between(base, previous * 3)) with base 100ms and previous starting at base:
		// 100 + 0.5 * 200 = 200; 100 + 0.5 * 500 = 350; 100 + 1.0 * 950 capped at 1000; ...
		DoubleSupplier random = sequence(0.5, 0.5, 0.99, 0.0);
		assertThat(delays(policy(Backoff.EXPONENTIAL, Jitter.DECORRELATED).maxRetries(4).maxDelay(ms(1000)), random))
			.containsExactly(ms(200), ms(350), ms(1000), ms(100));
	}

	@Test
	void decorrelatedJitterIgnoresTheBackoff() {
		List<Duration> fixed = delays(policy(Backoff.FIXED, Jitter.DECORRELATED).maxRetries(3), sequence(0.5, 0.5, 0.5));
		List<Duration> linear = delays(policy(Backoff.LINEAR, Jitter.DECORRELATED).maxRetries(3), sequence(0.5, 0.5, 0.5));
		assertThat(fixed).isEqualTo(linear).containsExactly(ms(200), ms(350), ms(575));
	}

	@Test
	void fullJitterStaysBetweenZeroAndTheDelay() {
		RetryDelays delays = manyDelays(Jitter.FULL);
		List<Duration> plain = plainDelays();
		for (int i = 0; delays.hasNext(); i++) {
			assertThat(delays.next()).isBetween(Duration.ZERO, plain.get(i));
		}
	}

	@Test
	void equalJitterStaysBetweenHalfTheDelayAndTheDelay() {
		RetryDelays delays = manyDelays(Jitter.EQUAL);
		List<Duration> plain = plainDelays();
		for (int i = 0; delays.hasNext(); i++) {
			assertThat(delays.next()).isBetween(plain.get(i).dividedBy(2), plain.get(i));
		}
	}

	@Test
	void decorrelatedJitterStaysBetweenTheBaseAndThreeTimesThePreviousAndTheCap() {
		RetryDelays delays = manyDelays(Jitter.DECORRELATED);
		Duration previous = ms(100);
		while (delays.hasNext()) {
			Duration delay = delays.next();
			assertThat(delay).isBetween(ms(100), min(ms(5000), previous.multipliedBy(3)));
			previous = delay;
		}
	}

	@Test
	void jitterDrawsSpreadOverTheirRange() {
		RetryDelays delays = policy(Backoff.FIXED, Jitter.FULL).maxRetries(10_000).build().delays(new Random(7)::nextDouble);
		long below = 0;
		while (delays.hasNext()) {
			below += (delays.next().compareTo(ms(50)) < 0) ? 1 : 0;
		}
		assertThat(below).isBetween(4_500L, 5_500L);
	}

	@Test
	void noDelayIsLeftAfterMaxRetries() {
		Iterator<Duration> delays = policy(Backoff.FIXED, Jitter.NONE).maxRetries(1).build().delays(HALF);
		delays.next();
		assertThat(delays.hasNext()).isFalse();
		assertThatExceptionOfType(NoSuchElementException.class).isThrownBy(delays::next).withMessageContaining("1");
	}

	@Test
	void zeroRetriesGiveNoDelay() {
		assertThat(policy(Backoff.FIXED, Jitter.NONE).maxRetries(0).build().delays(HALF).hasNext()).isFalse();
	}

	@Test
	void hugeDelaysSaturate() {
		RetryPolicy policy = policy(Backoff.EXPONENTIAL, Jitter.DECORRELATED).delay(Duration.ofDays(365 * 200))
			.maxDelay(Duration.ofDays(365 * 400))
			.maxRetries(3)
			.build();
		List<Duration> delays = delays(policy.toBuilder(), () -> 0.999);
		assertThat(delays).allSatisfy((delay) -> assertThat(delay).isPositive());
	}

	private static RetryDelays manyDelays(Jitter jitter) {
		return policy(Backoff.EXPONENTIAL, jitter).maxRetries(5_000).maxDelay(ms(5000)).build().delays(new Random(42)::nextDouble);
	}

	private static List<Duration> plainDelays() {
		return delays(policy(Backoff.EXPONENTIAL, Jitter.NONE).maxRetries(5_000).maxDelay(ms(5000)), HALF);
	}

	private static RetryPolicy.Builder policy(Backoff backoff, Jitter jitter) {
		return RetryPolicy.builder().backoff(backoff).jitter(jitter).delay(ms(100));
	}

	private static List<Duration> delays(RetryPolicy.Builder policy, DoubleSupplier random) {
		List<Duration> delays = new ArrayList<>();
		policy.build().delays(random).forEachRemaining(delays::add);
		return delays;
	}

	private static DoubleSupplier sequence(double... values) {
		int[] next = { 0 };
		return () -> values[next[0]++];
	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

	private static Duration ms(long millis) {
		return Duration.ofMillis(millis);
	}

}
