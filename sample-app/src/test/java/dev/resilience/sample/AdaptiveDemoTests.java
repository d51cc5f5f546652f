package dev.resilience.sample;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives the adaptive-concurrency demo over HTTP, in real time: 32 workers call a partner that
 * works on 8 requests at once (25 ms each), then 2, then 8 again, 6 s each, through
 * {@code partner-adaptive} ({@code max-concurrent: adaptive}, starting at 10). The limit grows
 * until calls queue in the partner about as long as they are worked on, so it falls when the
 * capacity falls (once per round trip) and grows back when it rises; the partner's queue follows
 * the limit, not the 32 workers. The bounds are generous, as the demo shares the machine with the
 * build, which makes latencies vary: typical runs settle between 15 and 30 with a capacity of 8,
 * and end between 3 and 8 with 2.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AdaptiveDemoTests {

	private static final int WORKERS = 32;

	private static final int SECONDS = 6;

	private final DemoRuns demo;

	AdaptiveDemoTests(@LocalServerPort int port, @Autowired JsonMapper json) {
		this.demo = new DemoRuns(port, json);
	}

	@Test
	void theLimitFallsWhenThePartnersCapacityFallsAndGrowsBackWhenItRises() throws Exception {
		run("8", 1); // loads the paths of a call, a wait for a permit and the partner's queue
		JsonNode report = run("8,2,8", SECONDS);
		JsonNode phases = report.get("phases");
		JsonNode before = phases.get(0);
		JsonNode low = phases.get(1);
		JsonNode after = phases.get(2);
		assertThat(report.get("limiter").asString()).isEqualTo("partner-adaptive");
		assertThat(report.get("timeline").size()).isGreaterThanOrEqualTo(3 * SECONDS * 10 - 3);
		for (JsonNode phase : phases) {
			assertThat(phase.get("served").asLong()).as("served: %s", phase).isPositive();
		}
		// With a capacity of 8 the limit grows past it and keeps the partner busy...
		assertThat(before.get("limitAtEnd").asInt()).as("limit with a capacity of 8: %s", phases)
			.isGreaterThanOrEqualTo(8);
		// ...falls when the capacity falls to 2, and the partner's queue shrinks with it, below
		// the 32 workers a fixed limit of 32 would send it...
		assertThat(low.get("limitAtEnd").asInt()).as("limit with a capacity of 2: %s", phases)
			.isLessThanOrEqualTo(before.get("limitAtEnd").asInt() / 2);
		assertThat(low.get("meanLimit").asDouble()).as("limit with a capacity of 2: %s", phases)
			.isLessThan(before.get("meanLimit").asDouble());
		assertThat(low.get("meanInsidePartner").asDouble()).as("inside the partner: %s", phases)
			.isLessThanOrEqualTo(0.6 * before.get("meanInsidePartner").asDouble())
			.isLessThanOrEqualTo(WORKERS / 2.0);
		// ...and grows back when the capacity comes back.
		assertThat(after.get("meanLimit").asDouble()).as("limit with a capacity of 8 again: %s", phases)
			.isGreaterThanOrEqualTo(1.5 * low.get("limitAtEnd").asInt())
			.isGreaterThanOrEqualTo(8);
		assertThat(after.get("servedPerSecond").asDouble()).as("served per second: %s", phases)
			.isGreaterThan(2 * low.get("servedPerSecond").asDouble());
	}

	private JsonNode run(String capacities, int seconds) throws Exception {
		return this.demo.run("/demo/adaptive?capacities=" + capacities + "&seconds=" + seconds + "&workers=" + WORKERS);
	}

}
