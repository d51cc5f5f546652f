package dev.resilience.autoconfigure.diagnostics;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.resilience.autoconfigure.support.ResilienceConfigurationException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ResilienceFailureAnalyzer}: what it claims in a cause chain, and what it leaves
 * to Spring Boot.
 */
class ResilienceFailureAnalyzerTests {

	private final ResilienceFailureAnalyzer analyzer = new ResilienceFailureAnalyzer();

	@Test
	void configurationExceptionShouldGiveItsMessageAndAction() {
		FailureAnalysis analysis = this.analyzer.analyze(new BeanCreationException("client", "failed",
				new ResilienceConfigurationException("@RateLimited on A.b() names ...", "Name one of [x].")));
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription()).isEqualTo("@RateLimited on A.b() names ...");
		assertThat(analysis.getAction()).isEqualTo("Name one of [x].");
	}

	@Test
	void refusedPropertyShouldBeClaimedWhereverItIsInTheChain() {
		FailureAnalysis analysis = this.analyzer.analyze(new BeanCreationException("registry", "failed",
				new IllegalArgumentException("resilience.rate-limiters.x.windows[0].limit must be positive but was 0")));
		assertThat(analysis).isNotNull();
		assertThat(analysis.getDescription())
			.isEqualTo("resilience.rate-limiters.x.windows[0].limit must be positive but was 0");
		assertThat(analysis.getAction()).startsWith("Correct resilience.rate-limiters.x.windows[0].limit in ");
		FailureAnalysis entry = this.analyzer.analyze(new IllegalStateException(
				"resilience.polls.x: unlimited max-attempts (-1) needs a timeout"));
		assertThat(entry).isNotNull();
		assertThat(entry.getAction()).startsWith("Correct resilience.polls.x in ");
	}

	@Test
	void otherFailuresShouldBeLeftToBoot() {
		assertThat(this.analyzer.analyze(new IllegalStateException("boom"))).isNull();
		assertThat(this.analyzer.analyze(new IllegalStateException("resilience is not the problem"))).isNull();
		assertThat(this.analyzer.analyze(new RuntimeException("resilience.x.y must be positive"))).isNull();
		assertThat(this.analyzer.analyze(new BeanCreationException("other", "failed", new IllegalArgumentException(
				"spring.data.redis.port must be positive")))).isNull();
	}

	@Test
	void analyzerShouldRunBeforeBootsOwn() {
		assertThat(this.analyzer.getOrder()).isEqualTo(Integer.MIN_VALUE);
	}

}
