package dev.resilience.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.StoreFailurePolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One frozen master of a cluster: an outage is a node's, so only the keys that live on it fail,
 * and the runner and the store each log it once, naming the node.
 */
class RedisClusterOutageTests {

	private static final int KEYS = 30;

	@Test
	void frozenMasterFailsOnlyItsOwnKeysAndTheLogNamesIt() {
		RedisServer.Cluster cluster = RedisServer.Cluster.shared();
		String prefix = "node-outage-" + System.nanoTime() + ":";
		RateLimiterSettings settings = RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.window(100, Duration.ofHours(1))
			.onStoreFailure(StoreFailurePolicy.FAIL_CLOSED)
			.build();
		RedisRateLimitStore store = new RedisRateLimitStore("node", settings, cluster.runner(), prefix,
				Duration.ofMillis(200));
		for (int i = 0; i < KEYS; i++) {
			assertThat(store.tryAcquire("k" + i, 1).isPermitted()).isTrue();
		}
		RedisServer frozen = cluster.masters().get(0);
		Set<String> onFrozen = keysHeldBy(frozen, new RedisKeys(prefix, "node", settings));
		assertThat(onFrozen).isNotEmpty().hasSizeLessThan(KEYS);
		Set<String> failed = new HashSet<>();
		try (LogLines log = new LogLines(RedisScriptRunner.class); LogLines storeLog = new LogLines(RedisRateLimitStore.class)) {
			frozen.freeze();
			try {
				for (int i = 0; i < KEYS; i++) {
					long errors = store.errorCount();
					boolean permitted = store.tryAcquire("k" + i, 1).isPermitted();
					if (store.errorCount() != errors) {
						failed.add("k" + i);
					}
					else {
						assertThat(permitted).isTrue();
					}
				}
			}
			finally {
				frozen.thaw();
				cluster.awaitOk();
			}
			assertThat(failed).isEqualTo(onFrozen);
			await().pollInSameThread().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(log.lines()).first()
					.asString()
					.matches("WARNING Redis is out \\(cluster node [0-9a-f]{40}\\): TimeoutException; "
							+ "commands fail at once until it answers"));
			// one outage, logged once: the other nodes' answers, between the frozen node's
			// failures, do not end it
			String frozenKey = onFrozen.iterator().next();
			RedisStoreOutageLogTests.awaitDecidedByRedis(store, frozenKey);
			await().pollInSameThread().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(storeLog.lines()).satisfiesExactly(
						(line) -> assertThat(line).matches("WARNING Rate limiter 'node': Redis \\(cluster node "
								+ "[0-9a-f]{40}\\) decision failed, deciding fail-closed until it answers again: "
								+ "TimeoutException"),
						(line) -> assertThat(line)
							.matches("INFO Rate limiter 'node': Redis \\(cluster node [0-9a-f]{40}\\) answers again")));
		}
	}

	/** The user keys whose state the server holds. */
	private static Set<String> keysHeldBy(RedisServer server, RedisKeys names) {
		List<String> held = server.keys("*");
		Set<String> keys = new HashSet<>();
		for (int i = 0; i < KEYS; i++) {
			String state = new String(names.keys("k" + i)[0], StandardCharsets.UTF_8);
			if (held.contains(state)) {
				keys.add("k" + i);
			}
		}
		return keys;
	}

}
