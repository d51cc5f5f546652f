package dev.resilience.autoconfigure.poll;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.util.ReflectionUtils;

import dev.resilience.autoconfigure.support.ReturnKind;
import dev.resilience.autoconfigure.support.ProposedSettings;
import dev.resilience.poll.PollExhaustedException;
import dev.resilience.poll.PollSettings;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.poll.PollUntil;
import dev.resilience.retry.Backoff;
import dev.resilience.retry.BackoffPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The overlay rule for {@link PollUntil @PollUntil}: an attribute set always wins over the named settings,
 * even when it equals the built-in default; one not set takes the settings' value.
 */
class PollUntilOverlayTests {

	private final PollSettings ten = PollSettings.builder()
		.maxAttempts(10)
		.delay(Duration.ofMillis(3))
		.backoff(Backoff.FIXED)
		.multiplier(3)
		.maxDelay(Duration.ofSeconds(20))
		.timeout(Duration.ofMinutes(1))
		.ignoreExceptions(true)
		.build();

	@Test
	void maxAttemptsOfFiveOnSettingsOfTenMakesFiveAttempts() {
		PolledMethod method = bind("five");
		assertThat(method.getSettings().maxAttempts()).isEqualTo(5);
		AtomicInteger calls = new AtomicInteger();
		assertThatExceptionOfType(PollExhaustedException.class)
			.isThrownBy(() -> method.poller(() -> calls.incrementAndGet() * 0 == 1, new Object[0]).await())
			.withMessage("Tried 5 times over 12ms, but condition was never met");
		assertThat(calls).hasValue(5);
	}

	@Test
	void attributesNotSetTakeTheNamedSettings() {
		assertThat(bind("unset").getSettings()).isEqualTo(this.ten);
	}

	@Test
	void everyAttributeSetToItsBuiltInDefaultWins() {
		assertThat(bind("defaults").getSettings()).isEqualTo(new PollSettings(
				new BackoffPolicy(Backoff.LINEAR, Duration.ofMillis(10), 2.0, Duration.ofSeconds(10)), 5,
				Duration.ofSeconds(30), false));
	}

	@Test
	void aSecondValueOfIgnoreExceptionsStopsStartup() {
		Method method = ReflectionUtils.findMethod(Client.class, "twoFlags");
		assertThatIllegalStateException()
			.isThrownBy(() -> binder().bind(method, Client.class, ReturnKind.of(method, PollUntil.class), ProposedSettings.NONE))
			.withMessage("@PollUntil on Client.twoFlags() (ignoreExceptions) sets 2 values, but takes one at most");
	}

	private PolledMethod bind(String name) {
		Method method = ReflectionUtils.findMethod(Client.class, name);
		PolledMethod bound = binder().bind(method, Client.class, ReturnKind.of(method, PollUntil.class), ProposedSettings.NONE);
		assertThat(bound).isNotNull();
		return bound;
	}

	private PollUntilBinder binder() {
		return new PollUntilBinder(PollSettingsRegistry.of(Map.of("ten", this.ten)), () -> 0, (nanos) -> {
		}, List.of(), null);
	}

	static class Client {

		@PollUntil(name = "ten", maxAttempts = 5)
		public Boolean five() {
			return false;
		}

		@PollUntil("ten")
		public Boolean unset() {
			return false;
		}

		@PollUntil(name = "ten", maxAttempts = 5, delay = "10ms", backoff = Backoff.LINEAR, multiplier = 2.0,
				maxDelay = "10s", timeout = "30s", ignoreExceptions = false)
		public Boolean defaults() {
			return false;
		}

		@PollUntil(name = "ten", ignoreExceptions = { true, false })
		public Boolean twoFlags() {
			return false;
		}

	}

}
