package dev.resilience.sample;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives the fleet demo over HTTP, in real time: eight workers call a partner that allows 10 calls
 * per second per API key through a limiter guessed too high (50 per second), once without
 * {@code pause-on-throttle} and once with it. The bounds are generous, as the demo shares the
 * machine with the build: typical runs of 3 s take 100 to 160 answers of 429 without the pause and
 * 15 to 20 with it, for 30 served either way.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class FleetDemoTests {

	private static final int WORKERS = 8;

	private static final int SECONDS = 3;

	private final DemoRuns demo;

	FleetDemoTests(@LocalServerPort int port, @Autowired JsonMapper json) {
		this.demo = new DemoRuns(port, json);
	}

	@Test
	void pausingOnThePartnersFirst429CutsThe429sWhileThePartnerServesAsMuch() throws Exception {
		run(false, 1); // loads the paths of a served call, a 429 and a rejection before the runs compared
		JsonNode without = run(false, SECONDS);
		JsonNode with = run(true, SECONDS);

		assertThat(without.get("limiter").asString()).isEqualTo("partner-fleet-unpaused");
		assertThat(with.get("limiter").asString()).isEqualTo("partner-fleet");
		// Without the pause, the guess lets through more than the partner serves, and each worker
		// finds the partner's limit out by itself, again and again.
		assertThat(without.get("served").asInt()).isPositive();
		assertThat(without.get("throttled").asInt()).as("429s without the pause: %s", without)
			.isGreaterThan(without.get("served").asInt());
		assertThat(without.get("pauses").asInt()).isZero();
		// With it, the first 429 of a partner window pauses the key for every worker until its
		// Retry-After (at least 1 s): only the calls already in flight are answered 429 too, so never
		// more than one per worker and pause.
		assertThat(with.get("pauses").asInt()).isPositive();
		assertThat(with.get("throttled").asInt()).as("429s with the pause: %s; without: %s", with, without)
			.isLessThanOrEqualTo(without.get("throttled").asInt() / 3)
			.isLessThanOrEqualTo(WORKERS * (SECONDS + 1));
		assertThat(with.get("served").asInt()).as("served with the pause: %s; without: %s", with, without)
			.isGreaterThanOrEqualTo((int) Math.ceil(0.8 * without.get("served").asInt()));
	}

	private JsonNode run(boolean pause, int seconds) throws Exception {
		return this.demo.run("/demo/fleet?pause=" + pause + "&workers=" + WORKERS + "&seconds=" + seconds);
	}

}
