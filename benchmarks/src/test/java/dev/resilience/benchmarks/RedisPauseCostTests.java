package dev.resilience.benchmarks;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisPauseCost}'s section; they start no server.
 */
class RedisPauseCostTests {

	private static final String TIMES = "shape,way,pause,round,decisions,scriptCalls,scriptMicros,segmentCalls,"
			+ "quietestSegmentMicros";

	@Test
	void theTargetIsMetWhenEveryRatioOfMeansIsUnderTheLimit() {
		List<String> times = List.of(TIMES, "BUCKET,ADMITTED,disabled,1,1000,1000,20000,100,1800",
				"BUCKET,ADMITTED,enabled,1,1000,1000,21000,100,1900",
				"BUCKET,ADMITTED,enabled,2,1000,1000,23000,100,1900",
				"BUCKET,ADMITTED,disabled,2,1000,1000,20000,100,1800");
		String section = RedisPauseCost.section(times, null, "test");
		assertThat(section).startsWith(RedisPauseCost.START).endsWith(RedisPauseCost.END);
		// means 20.00 and 22.00 µs: 1.100×, not under 1.10; each round's pair 1.05× and 1.15×
		assertThat(line(section, "mean µs per call")).contains("highest 1.100× (bucket only, admitted)")
			.endsWith("| **not met** |");
		assertThat(line(section, "| bucket only (`decide_bucket.lua`) | admitted |"))
			.contains("| 20.00 (20.00–20.00) | 22.00 (21.00–23.00) | 1.100× (1.050–1.150) |")
			.endsWith("| 18.00 (18.00–18.00) | 19.00 (19.00–19.00) | 1.056× (1.056–1.056) |");
		assertThat(line(section, "quietest tenth < 1.10×")).endsWith("| **met** |");
		assertThat(section).contains("Server instructions were not counted").doesNotContain("Server instructions per decision:");
	}

	@Test
	void instructionsHaveARowOfTheirOwnAndWhatPausingAdds() {
		List<String> times = List.of(TIMES, "WINDOW,REJECTED,disabled,1,1000,1000,30000,100,2900",
				"WINDOW,REJECTED,enabled,1,1000,1000,31000,100,3000");
		List<String> instructions = List.of("shape,way,pause,round,decisions,instructionsPerDecision",
				"WINDOW,REJECTED,disabled,1,2000,100000", "WINDOW,REJECTED,enabled,1,2000,104000",
				"WINDOW,REJECTED,enabled,2,2000,104200", "WINDOW,REJECTED,disabled,2,2000,100200");
		String section = RedisPauseCost.section(times, instructions, "test");
		assertThat(line(section, "the server's instructions per decision")).contains("highest 1.040×")
			.endsWith("| **met** |");
		assertThat(line(section, "| bucket + one exact window (`decide_window.lua`) | rejected | 100,100"))
			.isEqualTo("| bucket + one exact window (`decide_window.lua`) | rejected | 100,100 (100,000–100,200) "
					+ "| 104,100 (104,000–104,200) | 1.040× (1.040–1.040) | 4,000 |");
		assertThat(line(section, "mean µs per call")).endsWith("| **met** |");
	}

	@Test
	void eachShapeAndWayHasItsSettings() {
		for (RedisPauseCost.Shape shape : RedisPauseCost.Shape.values()) {
			for (RedisPauseCost.Way way : RedisPauseCost.Way.values()) {
				assertThat(RedisPauseCost.settings(shape, way, true).pauseOnThrottle().enabled()).isTrue();
				assertThat(RedisPauseCost.settings(shape, way, false).pauseOnThrottle().enabled()).isFalse();
			}
		}
		assertThat(RedisPauseCost.settings(RedisPauseCost.Shape.WINDOWS, RedisPauseCost.Way.ADMITTED, true).windows())
			.hasSize(2);
		assertThat(RedisPauseCost.settings(RedisPauseCost.Shape.CONCURRENT, RedisPauseCost.Way.REJECTED, true)
			.maxConcurrent()).isEqualTo(1);
	}

	private static String line(String markdown, String containing) {
		return markdown.lines()
			.filter((line) -> line.contains(containing))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no line with " + containing + " in\n" + markdown));
	}

}
