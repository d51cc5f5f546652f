package dev.resilience.sample.demo;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

import dev.resilience.retry.RetryAttempt;
import dev.resilience.retry.RetryCallOutcome;
import dev.resilience.retry.RetryListener;

/**
 * Remembers, per thread, the attempts of the last retried call, so the demo can show the
 * history of calls that succeeded too (a failed call carries its own).
 */
@Component
public class LastRetry implements RetryListener {

	private final ThreadLocal<@Nullable List<RetryAttempt>> last = new ThreadLocal<>();

	@Override
	public void onCallEnded(String name, RetryCallOutcome outcome, List<RetryAttempt> attempts) {
		this.last.set(attempts);
	}

	List<RetryAttempt> take() {
		List<RetryAttempt> attempts = this.last.get();
		this.last.remove();
		return (attempts != null) ? attempts : List.of();
	}

}
