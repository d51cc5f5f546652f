package dev.resilience.autoconfigure.ratelimit;

import java.time.Clock;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

import dev.resilience.autoconfigure.support.HttpAnswers;
import dev.resilience.internal.Causes;
import dev.resilience.ratelimit.PartnerAnswers;
import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.Throttle;
import dev.resilience.ratelimit.ThrottleSignal;

/**
 * Reads the exception a limited call ended with as a partner's throttle signal (SPEC §10): an
 * HTTP status of the limiter's {@code statuses} on Spring's HTTP exceptions (the exception or a
 * cause), else what the application's {@link ThrottleSignal} beans make of it, in order.
 */
final class ThrottleReader {

	private static final System.Logger logger = System.getLogger(ThrottleReader.class.getName());

	private final List<ThrottleSignal> signals;

	private final Clock clock;

	private final boolean web;

	/**
	 * Creates the reader.
	 * @param signals the application's signals, in order
	 * @param clock the clock a {@code Retry-After} date is compared with
	 * @param classLoader the application's class loader, which tells whether Spring Web is present
	 */
	ThrottleReader(List<ThrottleSignal> signals, Clock clock, @Nullable ClassLoader classLoader) {
		this.signals = List.copyOf(signals);
		this.clock = clock;
		this.web = ClassUtils.isPresent("org.springframework.web.client.RestClientResponseException", classLoader);
	}

	/**
	 * Reads one failure.
	 * @param failure what the call ended with
	 * @param settings the limiter's settings of pausing
	 * @return the throttle, or {@code null} when the failure is not a throttle signal
	 */
	@Nullable Throttle read(Throwable failure, PauseOnThrottleSettings settings) {
		if (this.web) {
			for (Throwable cause : Causes.chain(failure)) {
				HttpAnswers.Answer answer = HttpAnswers.of(cause);
				Throttle throttle = (answer != null)
						? PartnerAnswers.throttled(answer.status(), answer::field, settings.statuses(), this.clock) : null;
				if (throttle != null) {
					return throttle;
				}
			}
		}
		for (ThrottleSignal signal : this.signals) {
			try {
				Throttle throttle = signal.read(failure);
				if (throttle != null) {
					return throttle;
				}
			}
			catch (RuntimeException ex) {
				// A signal's own failure must not replace the call's: told, and the next asked.
				logger.log(System.Logger.Level.WARNING, "ThrottleSignal " + signal.getClass().getName()
						+ " failed to read a call's exception; it is taken for no throttle", ex);
			}
		}
		return null;
	}

}
