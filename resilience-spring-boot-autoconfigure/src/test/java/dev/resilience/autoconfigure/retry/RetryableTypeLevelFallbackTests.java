package dev.resilience.autoconfigure.retry;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.retry.Jitter;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @Retryable} on a type, with a {@code fallbackMethod}: the annotation reaches every
 * public method of the type, but the fallback it names is the annotation's fallback, not a method
 * to retry (which would need a fallback of its own, with a second exception parameter).
 */
class RetryableTypeLevelFallbackTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RetryAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class)
		.withBean(TypeLevelClient.class);

	@Test
	void aPublicFallbackOfATypeLevelRetryableIsCalledNotRetried() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			TypeLevelClient client = context.getBean(TypeLevelClient.class);
			assertThat(client.fetch("a")).isEqualTo("fallback for a after down 2");
			assertThat(client.calls()).hasValue(2);
			assertThat(client.recover("b", new IOException("direct"))).isEqualTo("fallback for b after direct");
			assertThat(client.recoveries()).hasValue(2);
		});
	}

	@Retryable(maxRetries = 1, delay = "10ms", jitter = Jitter.NONE, fallbackMethod = "recover")
	static class TypeLevelClient {

		final AtomicInteger calls = new AtomicInteger();

		final AtomicInteger recoveries = new AtomicInteger();

		// Not public, so not reached by the type's annotation; read through the proxy.
		AtomicInteger calls() {
			return this.calls;
		}

		AtomicInteger recoveries() {
			return this.recoveries;
		}

		public String fetch(String id) throws IOException {
			throw new IOException("down " + this.calls.incrementAndGet());
		}

		public String recover(String id, IOException failure) {
			this.recoveries.incrementAndGet();
			return "fallback for " + id + " after " + failure.getMessage();
		}

	}

}
