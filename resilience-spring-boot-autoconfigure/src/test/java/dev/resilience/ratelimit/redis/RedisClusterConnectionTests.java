package dev.resilience.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimiterSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A cluster runner opens, before its first command, the very connections its commands travel on:
 * Lettuce keys a slot's connection to its master by host and port, and opens one lazily from inside
 * another connection's completion, where its {@code SharedLock} was seen to spin and its handshake
 * to stall (docs/internals/redis-store.md). Outages are told apart by master: a key's route is the
 * node id of the master that serves its slot.
 */
class RedisClusterConnectionTests {

	private static final int KEYS = 30;

	@Test
	void theConnectionsThatCarryTheCommandsAreTheOnesOpenedBeforeThem() {
		RedisServer.Cluster cluster = RedisServer.Cluster.shared();
		int before = clients(cluster);
		RedisScriptRunner runner = cluster.runner();
		RedisRateLimitStore store = new RedisRateLimitStore("opened",
				RateLimiterSettings.builder().store(RedisRateLimitStore.TYPE).window(10, Duration.ofHours(1)).build(),
				runner, "opened-" + System.nanoTime() + ":", Duration.ofSeconds(10));
		// 30 keys: every master holds some (all on two of three: 3 * (2/3)^30, about 1.6e-5)
		for (int i = 0; i < KEYS; i++) {
			assertThat(store.tryAcquire("k" + i, 1).isPermitted()).isTrue();
		}
		// One connection to each master, opened by the runner and used by every command since, and
		// the cluster connection's own; a command on a connection of its own would make it seven.
		// Lettuce's topology reads close their connections soon after connecting.
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(clients(cluster) - before).isEqualTo(cluster.masters().size() + 1));
		assertThat(store.errorCount()).isZero();
	}

	@Test
	void aKeyIsRoutedToTheMasterThatServesItsSlot() {
		RedisServer.Cluster cluster = RedisServer.Cluster.shared();
		RedisScriptRunner runner = cluster.runner();
		Map<String, RedisServer> mastersById = new HashMap<>();
		cluster.masters().forEach((master) -> mastersById.put(master.commands().clusterMyId(), master));
		Set<String> routes = new HashSet<>();
		for (int i = 0; i < KEYS; i++) {
			String key = "routed-" + i;
			String route = runner.route(key.getBytes(StandardCharsets.UTF_8));
			routes.add(route);
			// the master named serves the key itself: another would answer MOVED
			assertThat(mastersById).containsKey(route);
			assertThat(mastersById.get(route).commands().exists(key)).isZero();
		}
		assertThat(routes).isEqualTo(mastersById.keySet());
	}

	/** The connections open to the cluster's masters, all clients together. */
	private static int clients(RedisServer.Cluster cluster) {
		return cluster.masters()
			.stream()
			.mapToInt((master) -> master.commands().clientList().split("\n").length)
			.sum();
	}

}
