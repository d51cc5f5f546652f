package dev.resilience.ratelimit;

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

}
