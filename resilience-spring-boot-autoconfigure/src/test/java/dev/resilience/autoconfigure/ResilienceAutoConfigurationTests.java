package dev.resilience.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ResilienceAutoConfiguration}.
 */
class ResilienceAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class));

	@Test
	void runShouldProvideSystemTickerSleeperAndProperties() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(Ticker.class)
				.hasSingleBean(Sleeper.class)
				.hasSingleBean(ResilienceProperties.class);
			// The system ticker follows System.nanoTime().
			long before = System.nanoTime();
			long reading = context.getBean(Ticker.class).read();
			assertThat(reading).isBetween(before, System.nanoTime());
		});
	}

	@Test
	void runWhenUserDefinesTickerAndSleeperShouldBackOff() {
		this.contextRunner.withUserConfiguration(TestTimeConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(Ticker.class).hasSingleBean(Sleeper.class);
			assertThat(context.getBean(Ticker.class)).isSameAs(context.getBean(TestTicker.class));
			assertThat(context.getBean(Sleeper.class)).isSameAs(context.getBean(TestSleeper.class));
		});
	}

	@Test
	void runWhenUserDefinesOnlyTickerShouldKeepSystemSleeper() {
		this.contextRunner.withBean(TestTicker.class).run((context) -> {
			assertThat(context).hasSingleBean(Ticker.class).hasSingleBean(Sleeper.class);
			assertThat(context.getBean(Ticker.class)).isInstanceOf(TestTicker.class);
			assertThat(context.getBean(Sleeper.class)).isNotInstanceOf(TestSleeper.class);
		});
	}

	@Test
	void runWhenAspectOrderIsSetShouldBindIt() {
		this.contextRunner.withPropertyValues("resilience.aspect-order.rate-limit=42")
			.run((context) -> assertThat(context.getBean(ResilienceProperties.class).getAspectOrder().getRateLimit())
				.isEqualTo(42));
	}

}
