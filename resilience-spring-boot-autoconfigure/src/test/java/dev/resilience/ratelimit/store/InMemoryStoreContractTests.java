package dev.resilience.ratelimit.store;

import dev.resilience.Ticker;
import dev.resilience.ratelimit.RateLimiterSettings;

/** The store contract, kept by the in-memory store. */
class InMemoryStoreContractTests extends StoreContractTests {

	@Override
	protected String storeType() {
		return RateLimiterSettings.MEMORY_STORE;
	}

	@Override
	protected RateLimitStoreFactory storeFactory() {
		return InMemoryRateLimitStore::new;
	}

	@Override
	protected RateLimitStoreFactory storeFactory(Ticker clock) {
		// the store reads the application's clock, the registry's
		return InMemoryRateLimitStore::new;
	}

}
