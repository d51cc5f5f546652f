package dev.resilience.autoconfigure.support;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClosestName}: a misspelled name finds the configured one it meant, an unrelated
 * name none.
 */
class ClosestNameTests {

	@Test
	void typoShouldFindTheNameItMeant() {
		List<String> configured = List.of("partner-api", "llm", "billing");
		assertThat(ClosestName.of("partner-apii", configured)).isEqualTo("partner-api");
		assertThat(ClosestName.of("partenr-api", configured)).isEqualTo("partner-api");
		assertThat(ClosestName.of("Billing", configured)).isEqualTo("billing");
		assertThat(ClosestName.of("lm", configured)).isEqualTo("llm");
	}

	@Test
	void unrelatedNameShouldFindNone() {
		assertThat(ClosestName.of("orders", List.of("partner-api", "llm"))).isNull();
		assertThat(ClosestName.of("x", List.of())).isNull();
	}

	@Test
	void transpositionShouldCountAsOneEdit() {
		assertThat(ClosestName.distance("ab", "ba")).isEqualTo(1);
		assertThat(ClosestName.distance("kitten", "sitting")).isEqualTo(3);
	}

}
