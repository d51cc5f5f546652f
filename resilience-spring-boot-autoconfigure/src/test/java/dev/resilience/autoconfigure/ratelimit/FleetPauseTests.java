package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The story of SPEC §10 with real parts: two application instances (contexts) sharing one Redis,
 * four workers each, calling a real partner on a loopback port that allows 10 requests per key per
 * 2 s, through {@code @RateLimited} with a limit guessed too high (50/s, and a {@code max-wait} of
 * 3 s). A worker that fails goes on with its next call, as a batch job goes on with its next item.
 * Without the pause, the partner's refusals cost nothing, so every worker keeps sending calls that
 * are doomed, as fast as the guessed limit lets them. With {@code pause-on-throttle}, one 429 pauses
 * the key for the whole fleet until the partner's Retry-After, the workers wait it out within their
 * {@code max-wait}: the 429s fall to a handful per partner window while the partner serves as much
 * as without the pause.
 */
class FleetPauseTests {

	private static final RedisServer redis = RedisServer.shared();

	private static final Duration RUN = Duration.ofSeconds(6);

	private static final int WORKERS = 4;

	/** The partner's window: it serves 10 calls per key in each. */
	private static final Duration WINDOW = Duration.ofSeconds(2);

	private ApplicationContextRunner instance(FakePartner partner, String prefix, boolean pause) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					ResilienceAutoConfiguration.class, RateLimiterRedisAutoConfiguration.class,
					RateLimiterAutoConfiguration.class))
			.withBean(PartnerClient.class, () -> new PartnerClient(partner.client()))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"resilience.redis.key-prefix=" + prefix, "resilience.redis.connect-timeout=30s",
					"resilience.redis.decision-timeout=5s", "resilience.rate-limiters.partner.store=redis",
					"resilience.rate-limiters.partner.windows[0].limit=50",
					"resilience.rate-limiters.partner.windows[0].period=1s", "resilience.rate-limiters.partner.max-wait=3s",
					"resilience.rate-limiters.partner.pause-on-throttle.enabled=" + pause);
	}

	/** Runs two instances for {@link #RUN} and returns the partner's counts: served, then 429s. */
	private int[] runFleet(boolean pause) throws Exception {
		try (FakePartner partner = new FakePartner(10, WINDOW.toMillis())) {
			String prefix = "fleet-" + pause + "-" + System.nanoTime() + ":";
			int[] counts = new int[2];
			instance(partner, prefix, pause).run((first) -> instance(partner, prefix, pause).run((second) -> {
				assertThat(first.getBean(RateLimiterRegistry.class).get("partner").checkStoreStatus().reachable()).isTrue();
				assertThat(second.getBean(RateLimiterRegistry.class).get("partner").checkStoreStatus().reachable())
					.isTrue();
				int[] atDeadline = work(partner, first, second);
				counts[0] = atDeadline[0];
				counts[1] = atDeadline[1];
			}));
			return counts;
		}
	}

	/**
	 * Runs the workers of the instances for {@link #RUN}, three whole windows of the partner; returns
	 * what the partner answered within that time (a worker waiting out a pause at the end is not
	 * counted beyond it).
	 */
	private static int[] work(FakePartner partner, ConfigurableApplicationContext... instances)
			throws InterruptedException {
		partner.startWindows();
		long deadline = System.nanoTime() + RUN.toNanos();
		List<Thread> workers = new ArrayList<>();
		for (ConfigurableApplicationContext instance : instances) {
			PartnerClient client = instance.getBean(PartnerClient.class);
			for (int i = 0; i < WORKERS; i++) {
				Thread worker = new Thread(() -> {
					while (System.nanoTime() < deadline) {
						try {
							client.customer("acme");
						}
						catch (RuntimeException ex) {
							// refused by the partner or by the limiter: the worker goes on with its next call
						}
					}
				});
				worker.start();
				workers.add(worker);
			}
		}
		for (Thread worker : workers) {
			worker.join(RUN.plusSeconds(30).toMillis());
			assertThat(worker.isAlive()).as("a worker still calling: %s", Arrays.toString(worker.getStackTrace()))
				.isFalse();
		}
		return partner.answeredInFirst((int) (RUN.toMillis() / WINDOW.toMillis()));
	}

	@Test
	void oneThrottledAnswerPausesTheKeyOnEveryInstanceWhileThePartnersCapacityIsStillUsed() throws Exception {
		int[] without = runFleet(false);
		int[] with = runFleet(true);

		int windows = (int) (RUN.toMillis() / WINDOW.toMillis());
		// Without the pause, the workers send what the guessed limit lets through: most of it refused.
		assertThat(without[1]).as("429s without the pause").isGreaterThan(windows * 20);
		// With it, a handful per window: those in flight when the first 429 came back.
		assertThat(with[1]).as("429s with the pause (without: %d)", without[1]).isLessThanOrEqualTo(windows * 8);
		assertThat(with[1]).isLessThan(without[1] / 5);
		assertThat(with[0]).as("served with the pause (without: %d)", without[0])
			.isGreaterThanOrEqualTo((int) Math.ceil(0.8 * without[0]));
	}

	@Test
	void aPauseSetByOneInstanceRejectsTheOthersNextCallWithTheRestOfThePause() throws Exception {
		try (FakePartner partner = new FakePartner(10, WINDOW.toMillis())) {
			String prefix = "fleet-one-" + System.nanoTime() + ":";
			instance(partner, prefix, true).run((first) -> instance(partner, prefix, true).run((second) -> {
				RateLimiter one = first.getBean(RateLimiterRegistry.class).get("partner");
				RateLimiter two = second.getBean(RateLimiterRegistry.class).get("partner");

				one.pause("acme", Duration.ofSeconds(20));

				RateLimitExceededException rejected = null;
				try {
					two.acquire("acme", 1, Duration.ZERO).close();
				}
				catch (RateLimitExceededException ex) {
					rejected = ex;
				}
				assertThat(rejected).isNotNull();
				assertThat(rejected.getRetryAfter()).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(22));
				assertThat(two.inspect("acme").getPause()).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20));
				assertThat(two.tryAcquire("other", 1).isPermitted()).isTrue();
			}));
		}
	}

	/** The application's client of the partner. */
	static class PartnerClient {

		private final RestClient client;

		PartnerClient(RestClient client) {
			this.client = client;
		}

		@RateLimited(name = "partner", key = "#customer")
		public String customer(String customer) {
			return this.client.get().uri("/customers/{customer}", customer).retrieve().body(String.class);
		}

	}

}
