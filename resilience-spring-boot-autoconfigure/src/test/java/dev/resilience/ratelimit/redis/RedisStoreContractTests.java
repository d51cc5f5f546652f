package dev.resilience.ratelimit.redis;

import java.time.Duration;

import dev.resilience.ratelimit.store.RateLimitStoreFactory;
import dev.resilience.ratelimit.store.StoreContractTests;

/** The store contract, kept by the Redis store on one server. */
class RedisStoreContractTests extends StoreContractTests {

	private static final RedisScriptRunner runner = RedisServer.shared().runner();

	@Override
	protected String storeType() {
		return RedisRateLimitStore.TYPE;
	}

	@Override
	protected RateLimitStoreFactory storeFactory() {
		return RedisServer.stores(runner, "test:", Duration.ofSeconds(2));
	}

}
