package dev.resilience.sample.partner;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * What the partner's fleet endpoint answered each API key: requests served, and requests answered
 * {@code 429}. The fleet demo reads its run's counts here, on the partner's side, so that a
 * {@code 429} a client retried is counted too.
 */
@Component
public class PartnerLedger {

	private final Map<String, Answers> answers = new ConcurrentHashMap<>();

	void served(String apiKey) {
		answers(apiKey).served.incrementAndGet();
	}

	void throttled(String apiKey) {
		answers(apiKey).throttled.incrementAndGet();
	}

	/**
	 * Returns what an API key was answered, and forgets it.
	 * @param apiKey the API key
	 * @return the requests served and throttled
	 */
	public Counts take(String apiKey) {
		Answers taken = this.answers.remove(apiKey);
		return (taken != null) ? new Counts(taken.served.get(), taken.throttled.get()) : new Counts(0, 0);
	}

	private Answers answers(String apiKey) {
		return this.answers.computeIfAbsent(apiKey, (key) -> new Answers());
	}

	/**
	 * What one API key was answered.
	 *
	 * @param served the requests answered {@code 200}
	 * @param throttled the requests answered {@code 429}
	 */
	public record Counts(int served, int throttled) {
	}

	private static final class Answers {

		private final AtomicInteger served = new AtomicInteger();

		private final AtomicInteger throttled = new AtomicInteger();

	}

}
