package dev.resilience.retry;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

/**
 * Retries the annotated method, or every public method of the annotated type, when it fails:
 * with backoff and jitter between attempts, at least as long as a failure's {@code Retry-After},
 * within a maximum duration and the policy's retry budget. Not to be confused with Spring
 * Framework's {@code org.springframework.resilience.annotation.Retryable}, which this starter
 * does not process (nor does Spring process this one).
 * <p>
 * An attribute this annotation does not set takes the value of the named policy
 * ({@code resilience.retries.<name>}), whose own defaults are the ones given here; an attribute
 * it sets always wins, even when it equals that default ({@code maxRetries = 3} on a policy of 5
 * makes 3). So each attribute's declared default is a "not set" marker, never a value: the
 * minimum {@code int}, {@code NaN}, an empty string or an empty array. {@link #backoff()} and
 * {@link #jitter()} are arrays for that reason only: write one value, as in
 * {@code backoff = Backoff.FIXED}. String
 * attributes accept {@code ${...}} placeholders; durations use Spring Boot's format
 * ({@code 250ms}, {@code 5s}, {@code PT5S}). When retrying ends in failure, the last exception
 * is rethrown as itself with a suppressed {@link RetriesExhaustedException} holding the history;
 * when it ends on a result that {@link #retryIfResult()} still rejects, the
 * {@code RetriesExhaustedException} itself is thrown.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Retryable {

	/**
	 * Alias for {@link #name()}.
	 * @return the policy's name
	 */
	@AliasFor("name")
	String value() default "";

	/**
	 * The named policy under {@code resilience.retries.<name>}; empty for the built-in defaults,
	 * with {@code ClassName.method} as the name of the meters.
	 * @return the policy's name
	 */
	@AliasFor("value")
	String name() default "";

	/**
	 * The retries after the first attempt: {@code 3} makes up to 4 attempts. Not set (the
	 * marker {@code Integer.MIN_VALUE}): the named policy's, else {@code 3}.
	 * @return the retries, zero or more
	 */
	int maxRetries() default Integer.MIN_VALUE;

	/**
	 * The first delay, such as {@code 100ms}. Empty: the named policy's, else {@code 100ms}.
	 * @return the delay
	 */
	String delay() default "";

	/**
	 * How the delay grows, one value: {@code backoff = Backoff.FIXED}. Empty (not set): the
	 * named policy's, else {@link Backoff#EXPONENTIAL}.
	 * @return the backoff, at most one
	 */
	Backoff[] backoff() default {};

	/**
	 * The growth factor of {@link Backoff#EXPONENTIAL}. Not set (the marker {@code NaN}): the
	 * named policy's, else {@code 2.0}.
	 * @return the multiplier, at least 1
	 */
	double multiplier() default Double.NaN;

	/**
	 * The cap on one delay; a Retry-After beyond it ends retrying. Empty: the named policy's,
	 * else {@code 10s}.
	 * @return the maximum delay
	 */
	String maxDelay() default "";

	/**
	 * How delays are randomised, one value: {@code jitter = Jitter.NONE}. Empty (not set): the
	 * named policy's, else {@link Jitter#FULL}.
	 * @return the jitter, at most one
	 */
	Jitter[] jitter() default {};

	/**
	 * The time all attempts and delays may take: no retry starts whose delay would end past it.
	 * Empty: the named policy's, else no limit.
	 * @return the maximum duration
	 */
	String maxDuration() default "";

	/**
	 * The failures retried, matched on the exception and its causes. Empty: the named policy's,
	 * else every {@link Exception}. {@link Error}s are never retried.
	 * @return the exception types
	 */
	Class<? extends Throwable>[] retryOn() default {};

	/**
	 * The failures never retried, matched on the exception and its causes. Empty: the named
	 * policy's, else none.
	 * @return the exception types
	 */
	Class<? extends Throwable>[] noRetryOn() default {};

	/**
	 * A SpEL condition over {@code #exception} and the arguments; {@code true} retries a
	 * failure {@link #retryOn()} admits. Empty to retry every such failure.
	 * @return the condition
	 */
	String retryIf() default "";

	/**
	 * A SpEL condition over {@code #result} and the arguments; {@code true} retries a returned
	 * value. Empty to retry no result.
	 * @return the condition
	 */
	String retryIfResult() default "";

	/**
	 * A method of the same bean, with the same parameters plus a trailing exception parameter
	 * and a fitting return type, called with the final exception when the call ends in a
	 * failure of that parameter's type. Empty for none.
	 * @return the fallback method's name
	 */
	String fallbackMethod() default "";

}
