package dev.resilience.autoconfigure.diagnostics;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

@ExtendWith(OutputCaptureExtension.class)
class ScratchReproTests {

	@Test
	void typo(CapturedOutput output) {
		SpringApplication application = new SpringApplication(App.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		try {
			application.run("--resilience.rate-limiters.x.max-concurrent=1", "--resilience.rate-limiters.x.max-wait=soon",
					"--resilience.pools.llm.max-size=2");
		}
		catch (Exception ex) {
			System.err.println("CAUGHT " + ex);
		}
		System.err.println("=====OUTPUT=====\n" + output);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
