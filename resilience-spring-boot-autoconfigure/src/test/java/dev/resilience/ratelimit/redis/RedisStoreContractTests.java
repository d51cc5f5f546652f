package dev.resilience.ratelimit.redis;

import java.time.Duration;

import dev.resilience.Ticker;
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

	@Override
	protected RateLimitStoreFactory storeFactory(Ticker clock) {
		// a deadline dated by the local clock stays ahead of a server clock the test moves
		return RedisServer.stores(ScriptClock.runner(RedisServer.shared()::connect, clock), "test:", Duration.ofHours(1));
	}

}
