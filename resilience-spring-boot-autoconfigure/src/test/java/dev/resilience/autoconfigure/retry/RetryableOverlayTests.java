package dev.resilience.autoconfigure.retry;

import java.io.IOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.util.ReflectionUtils;

import dev.resilience.autoconfigure.support.ReturnKind;
import dev.resilience.autoconfigure.support.ProposedSettings;
import dev.resilience.retry.Backoff;
import dev.resilience.retry.BackoffPolicy;
import dev.resilience.retry.Jitter;
import dev.resilience.retry.RetryPolicy;
import dev.resilience.retry.RetryRegistry;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The overlay rule: an attribute {@link Retryable @Retryable} sets always wins over the named policy, even
 * when it equals the built-in default; one it does not set takes the policy's value.
 */
class RetryableOverlayTests {

	private final RetryRegistry registry = RetryRegistry.builder()
		.policy("five", RetryPolicy.builder()
			.maxRetries(5)
			.delay(Duration.ofMillis(50))
			.backoff(Backoff.FIXED)
			.multiplier(3)
			.maxDelay(Duration.ofSeconds(20))
			.jitter(Jitter.NONE)
			.maxDuration(Duration.ofMinutes(1))
			.retryOn(List.of(IOException.class))
			.noRetryOn(List.of(IllegalStateException.class))
			.build())
		.retries((retry) -> retry.sleeper((nanos) -> {
		}))
		.build();

	@Test
	void maxRetriesOfThreeOnAPolicyOfFiveMakesFourAttempts() throws Throwable {
		RetryableMethod method = bind("three");
		assertThat(method.getRetry().getPolicy().maxRetries()).isEqualTo(3);
		AtomicInteger calls = new AtomicInteger();
		try {
			method.call(new Client(), new Object[0], () -> {
				calls.incrementAndGet();
				throw new IOException("down");
			});
		}
		catch (IOException expected) {
			// exhausted
		}
		assertThat(calls).hasValue(4);
	}

	@Test
	void attributesNotSetTakeThePolicysValues() {
		assertThat(bind("unset").getRetry().getPolicy()).isEqualTo(this.registry.getPolicy("five"));
	}

	@Test
	void everyAttributeSetToItsBuiltInDefaultWins() {
		RetryPolicy policy = bind("defaults").getRetry().getPolicy();
		assertThat(policy).isEqualTo(new RetryPolicy(3,
				new BackoffPolicy(Backoff.EXPONENTIAL, Duration.ofMillis(100), 2.0, Duration.ofSeconds(10)), Jitter.FULL,
				Duration.ofSeconds(30), List.of(Exception.class), List.of(IOException.class), null));
	}

	@Test
	void aSecondValueOfAOneValueAttributeStopsStartup() {
		Method method = ReflectionUtils.findMethod(Client.class, "twoBackoffs");
		assertThatIllegalStateException()
			.isThrownBy(() -> new RetryableBinder(this.registry, null).bind(method, Client.class,
					ReturnKind.of(method, Retryable.class), ProposedSettings.NONE))
			.withMessage("@Retryable on Client.twoBackoffs() (backoff) sets 2 values, but takes one at most");
	}

	@Test
	void withoutANameTheBuiltInDefaultsApply() {
		assertThat(bind("unnamed").getRetry().getPolicy()).isEqualTo(RetryPolicy.builder().build());
	}

	private RetryableMethod bind(String name) {
		Method method = ReflectionUtils.findMethod(Client.class, name);
		RetryableMethod bound = new RetryableBinder(this.registry, null).bind(method, Client.class,
				ReturnKind.of(method, Retryable.class), ProposedSettings.NONE);
		assertThat(bound).isNotNull();
		return bound;
	}

	static class Client {

		@Retryable(name = "five", maxRetries = 3)
		public String three() {
			return "";
		}

		@Retryable("five")
		public String unset() {
			return "";
		}

		@Retryable(name = "five", maxRetries = 3, delay = "100ms", backoff = Backoff.EXPONENTIAL, multiplier = 2.0,
				maxDelay = "10s", jitter = Jitter.FULL, maxDuration = "30s", retryOn = Exception.class,
				noRetryOn = IOException.class)
		public String defaults() {
			return "";
		}

		@Retryable(name = "five", backoff = { Backoff.FIXED, Backoff.LINEAR })
		public String twoBackoffs() {
			return "";
		}

		@Retryable
		public String unnamed() {
			return "";
		}

	}

}
