package dev.resilience.autoconfigure;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Replaces the starter's clock and sleeper with a {@link TestTicker} and a {@link TestSleeper}
 * that advances it, so that no test sleeps for real.
 */
@Configuration(proxyBeanMethods = false)
public class TestTimeConfiguration {

	@Bean
	TestTicker testTicker() {
		return new TestTicker();
	}

	@Bean
	TestSleeper testSleeper(TestTicker ticker) {
		return new TestSleeper(ticker);
	}

}
