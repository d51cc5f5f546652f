package dev.resilience.autoconfigure.web;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;

import dev.resilience.autoconfigure.ratelimit.RateLimitDecisionRecorder;
import dev.resilience.ratelimit.RateLimitDecision;

/**
 * The admitting decisions of one WebFlux exchange, kept as an exchange attribute: one item per
 * policy, the state after the latest decision of its limiter. Thread-safe: decisions may arrive
 * from any thread while the response is being prepared.
 * <p>
 * Decisions reach it two ways. The Reactor driver finds it in the subscriber's Reactor
 * {@code Context} under {@code RateLimitDecisionRecorder.class}. A call decided outside Reactor
 * (a blocking or {@code CompletableFuture} method called by a handler) reaches it through the
 * {@linkplain #current() current thread's recorder}, which {@link RateLimitWebFluxListener}
 * reads: the web filter sets it while the exchange's handling is subscribed, and a
 * {@link ThreadLocalAccessor} under the same key lets context-propagation carry it to other
 * threads (Reactor's automatic context propagation, or a snapshot restored in a continuation).
 */
final class RateLimitExchangeDecisions implements RateLimitDecisionRecorder {

	private static final String ATTRIBUTE = RateLimitExchangeDecisions.class.getName();

	/** The recorder of the exchange this thread works for, if it is known. */
	private static final ThreadLocal<@Nullable RateLimitDecisionRecorder> current = new ThreadLocal<>();

	private final RateLimitHeaderItems items = new RateLimitHeaderItems();

	private RateLimitExchangeDecisions() {
	}

	/**
	 * Returns the decisions of an exchange, created on first use.
	 * @param exchange the exchange
	 * @return its decisions
	 */
	static RateLimitExchangeDecisions of(ServerWebExchange exchange) {
		return (RateLimitExchangeDecisions) exchange.getAttributes()
			.computeIfAbsent(ATTRIBUTE, (name) -> new RateLimitExchangeDecisions());
	}

	/** Takes an admitting decision; a rejection or a decision without quotas adds nothing. */
	@Override
	public void record(RateLimitDecision decision) {
		if (decision.isPermitted() && !decision.getQuotas().isEmpty()) {
			this.items.merge(decision);
		}
	}

	/** The items of the decisions recorded so far. */
	RateLimitHeaderItems items() {
		return this.items;
	}

	/**
	 * Sets {@code RateLimit-Policy} and {@code RateLimit} from the items, when there are any.
	 * @param headers the response's headers, not yet committed
	 */
	void writeTo(HttpHeaders headers) {
		synchronized (this.items) {
			if (!this.items.isEmpty()) {
				headers.set(RateLimitHeaders.POLICY, this.items.policy());
				headers.set(RateLimitHeaders.RATE_LIMIT, this.items.rateLimit());
			}
		}
	}

	/**
	 * Returns the recorder of the exchange this thread works for.
	 * @return the recorder, or {@code null} when this thread does not work for an exchange
	 */
	static @Nullable RateLimitDecisionRecorder current() {
		return current.get();
	}

	/**
	 * Runs an action with a recorder as this thread's current one, then restores the previous.
	 * @param recorder the recorder
	 * @param action the action
	 */
	static void runWith(RateLimitDecisionRecorder recorder, Runnable action) {
		RateLimitDecisionRecorder previous = current.get();
		current.set(recorder);
		try {
			action.run();
		}
		finally {
			if (previous != null) {
				current.set(previous);
			}
			else {
				current.remove();
			}
		}
	}

	/**
	 * Registers the current recorder with context-propagation's global registry, under the key
	 * the Reactor {@code Context} uses. Registering again replaces the earlier registration.
	 */
	static void registerThreadLocalAccessor() {
		ContextRegistry.getInstance().registerThreadLocalAccessor(new CurrentRecorderAccessor());
	}

	/** The current recorder as a context-propagation thread-local value. */
	private static final class CurrentRecorderAccessor implements ThreadLocalAccessor<RateLimitDecisionRecorder> {

		@Override
		public Object key() {
			return RateLimitDecisionRecorder.class;
		}

		@Override
		public @Nullable RateLimitDecisionRecorder getValue() {
			return current.get();
		}

		@Override
		public void setValue(RateLimitDecisionRecorder value) {
			current.set(value);
		}

		@Override
		public void setValue() {
			current.remove();
		}

	}

}
