package dev.resilience.benchmarks;

import java.awt.image.BufferedImage;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.resilience.benchmarks.AdaptiveConcurrencySimulation.Contender;
import dev.resilience.benchmarks.AdaptiveConcurrencySimulation.Phase;
import dev.resilience.benchmarks.AdaptiveConcurrencySimulation.PhaseResult;
import dev.resilience.benchmarks.AdaptiveConcurrencySimulation.Result;
import dev.resilience.benchmarks.AdaptiveConcurrencySimulation.Scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Tests for {@link AdaptiveConcurrencySimulation} on a shorter scenario than the report's.
 */
class AdaptiveConcurrencySimulationTests {

	private static final Scenario SHORT = Scenario.standard().withPhases(Phase.parse("4:10,12:10,2:10"));

	private static final Contender ADAPTIVE = Contender.standard().get(0);

	private static final Contender FIXED_HIGH = Contender.fixed(AdaptiveConcurrencySimulation.FIXED_HIGH, 32);

	private static final Contender FIXED_LOW = Contender.fixed(AdaptiveConcurrencySimulation.FIXED_LOW, 4);

	@Test
	void theSameScenarioGivesTheSameFigures() {
		Result first = AdaptiveConcurrencySimulation.simulate(SHORT, ADAPTIVE);
		Result second = AdaptiveConcurrencySimulation.simulate(SHORT, ADAPTIVE);
		assertThat(second.points()).isEqualTo(first.points());
		assertThat(first.points()).hasSize(150);
		assertThat(first.contender().name()).isEqualTo(AdaptiveConcurrencySimulation.ADAPTIVE);
	}

	@Test
	void aFixedLimitAboveTheCapacityKeepsThePartnerBusyAndQueueing() {
		Result fixed = AdaptiveConcurrencySimulation.simulate(SHORT, FIXED_HIGH);
		PhaseResult four = fixed.phases().get(0);
		// every caller but those on their way is inside: 4 served, the rest in the queue
		assertThat(four.throughput()).isCloseTo(200, within(2.0));
		assertThat(four.busy()).isCloseTo(1, within(0.01));
		assertThat(four.meanInside()).isGreaterThan(28);
		assertThat(fixed.phases().get(1).throughput()).isCloseTo(600, within(6.0));
		assertThat(fixed.phases().get(2).throughput()).isCloseTo(100, within(1.0));
	}

	@Test
	void aFixedLimitOfTheCapacityLeavesThePartnerIdleForTheRoundTrip() {
		PhaseResult four = AdaptiveConcurrencySimulation.simulate(SHORT, FIXED_LOW).phases().get(0);
		// each call holds its permit 20 ms in the partner and 6 ms on average on its way
		assertThat(four.throughput()).isCloseTo(4 / 0.026, within(5.0));
		assertThat(four.meanLimit()).isEqualTo(4);
	}

	@Test
	void theAdaptiveLimitKeepsTheQueueShortAtTheThroughputOfTheFixedOne() {
		Result adaptive = AdaptiveConcurrencySimulation.simulate(SHORT, ADAPTIVE);
		Result fixed = AdaptiveConcurrencySimulation.simulate(SHORT, FIXED_HIGH);
		assertThat(adaptive.phases().get(0).meanInside()).isLessThan(0.4 * fixed.phases().get(0).meanInside());
		assertThat(adaptive.phases().get(0).throughput()).isGreaterThan(0.9 * fixed.phases().get(0).throughput());
		assertThat(adaptive.phases().get(1).throughput()).isGreaterThan(0.9 * fixed.phases().get(1).throughput());
		assertThat(adaptive.phases().get(2).meanInside()).isLessThanOrEqualTo(6);
		assertThat(adaptive.phases().get(2).busy()).isGreaterThan(0.9);
	}

	@Test
	void theSectionHasEachPhaseTheRatiosAndThePicture() {
		List<Result> results = List.of(AdaptiveConcurrencySimulation.simulate(SHORT, ADAPTIVE),
				AdaptiveConcurrencySimulation.simulate(SHORT, FIXED_HIGH),
				AdaptiveConcurrencySimulation.simulate(SHORT, FIXED_LOW));
		String section = AdaptiveConcurrencySimulation.section(SHORT, results, "docs/images/adaptive-concurrency.png",
				1234);
		assertThat(section).startsWith(AdaptiveConcurrencySimulation.START)
			.endsWith(AdaptiveConcurrencySimulation.END)
			.contains("(images/adaptive-concurrency.png)")
			.contains("4 for 10 s, then 12 for 10 s, then 2 for 10 s")
			.contains("| Capacity | Inside ÷ fixed 32 | Completed/s ÷ fixed 32 | Inside ÷ fixed 4 | Completed/s ÷ fixed 4 |")
			.contains("`benchmarks/run-adaptive.sh`");
		assertThat(section.lines().filter((line) -> line.startsWith("| 12 | "))).hasSize(4);
		assertThat(AdaptiveConcurrencySimulation.csv(results).lines()).hasSize(1 + 3 * 150);
		BufferedImage image = AdaptiveConcurrencyPlot.render(SHORT, results);
		assertThat(image.getWidth()).isEqualTo(1200);
	}

	@Test
	void phasesAreCapacityColonSeconds() {
		assertThat(Phase.parse("4:30, 12:5")).containsExactly(new Phase(4, Duration.ofSeconds(30)),
				new Phase(12, Duration.ofSeconds(5)));
		assertThat(AdaptiveConcurrencyPlot.niceCeiling(33.6)).isEqualTo(50);
		assertThat(AdaptiveConcurrencyPlot.niceCeiling(630)).isEqualTo(1000);
		assertThat(AdaptiveConcurrencyPlot.niceCeiling(21)).isEqualTo(25);
	}

}
