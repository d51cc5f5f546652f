package dev.resilience.autoconfigure.web.client;

import java.time.Clock;
import java.util.Objects;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.http.HttpRequest;

import dev.resilience.autoconfigure.support.Timeouts;
import dev.resilience.ratelimit.PartnerAnswers;
import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Throttle;

/**
 * The limiter that requests to some hosts are under, and how a request's key is chosen
 * ({@code resilience.rate-limiters.<name>.http-client}).
 *
 * @param limiter the limiter
 * @param key the parsed {@code http-client.key}, or {@code null} for the request's host
 * @param keyProperty the full name of the key's property, for messages
 */
public record HttpClientRoute(RateLimiter limiter, @Nullable Expression key, String keyProperty) {

	/**
	 * Returns the key of one request: its {@code http-client.key} evaluated over {@code #request},
	 * or by default its host in lower case.
	 * @param request the request
	 * @return the key, never empty
	 * @throws IllegalArgumentException if the expression fails or gives {@code null} or an empty
	 * string (which would silently share one bucket); the message names the property and the
	 * expression, never a key
	 */
	public String key(HttpRequest request) {
		Expression expression = this.key;
		if (expression == null) {
			// the route was found by this host, so there is one
			return HttpClientRoutes.normalize(Objects.requireNonNull(request.getURI().getHost()));
		}
		// Read-only: a key is chosen from the request, nothing is called beyond its methods.
		SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().build();
		context.setVariable("request", request);
		Object value;
		try {
			value = expression.getValue(context);
		}
		catch (EvaluationException ex) {
			throw new IllegalArgumentException(where(expression) + " failed: " + ex.getMessage(), ex);
		}
		String key = (value != null) ? value.toString() : null;
		if (key == null || key.isEmpty()) {
			throw new IllegalArgumentException(where(expression) + " evaluated to "
					+ ((key == null) ? "null; a null key" : "an empty string; an empty key")
					+ " would silently share one bucket");
		}
		return key;
	}

	/**
	 * Reads a partner's answer for a throttle signal, when the limiter pauses on them
	 * ({@code pause-on-throttle.enabled}): a status in {@code pause-on-throttle.statuses}, or a
	 * {@code RateLimit} field item with {@code r=0} on an answer of any status.
	 * @param status the answer's status
	 * @param fields the answer's header fields by name
	 * @param clock the clock an HTTP-date {@code Retry-After} is read against
	 * @return the throttle, or {@code null} when the answer asks for no pause or the limiter does
	 * not pause
	 */
	public @Nullable Throttle throttle(int status, Function<String, @Nullable String> fields, Clock clock) {
		PauseOnThrottleSettings pauses = this.limiter.getSettings().pauseOnThrottle();
		if (!pauses.enabled()) {
			return null;
		}
		Throttle throttled = PartnerAnswers.throttled(status, fields, pauses.statuses(), clock);
		return (throttled != null) ? throttled : PartnerAnswers.quotaExhausted(fields);
	}

	/**
	 * Returns whether an answer is a drop for the limiter's adaptive limit: the limiter's
	 * {@code max-concurrent} is adaptive and the status is one of its
	 * {@code pause-on-throttle.statuses} (whether or not pausing is enabled).
	 * @param status the answer's status
	 * @return whether the request's permit should record a drop
	 */
	public boolean isDrop(int status) {
		RateLimiterSettings settings = this.limiter.getSettings();
		return settings.adaptiveConcurrency() != null && settings.pauseOnThrottle().statuses().contains(status);
	}

	/**
	 * Returns whether a request that failed is a drop for the limiter's adaptive limit: the
	 * limiter's {@code max-concurrent} is adaptive and the failure is a timeout
	 * ({@link Timeouts#isTimeout}).
	 * @param failure what the request failed with
	 * @return whether the request's permit should record a drop
	 */
	public boolean isDrop(Throwable failure) {
		return this.limiter.getSettings().adaptiveConcurrency() != null && Timeouts.isTimeout(failure);
	}

	private String where(Expression expression) {
		return "The key expression '" + expression.getExpressionString() + "' of " + this.keyProperty;
	}

}
