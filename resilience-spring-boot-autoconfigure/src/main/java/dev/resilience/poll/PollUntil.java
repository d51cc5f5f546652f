package dev.resilience.poll;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

import dev.resilience.retry.Backoff;

/**
 * Calls the annotated method again until its result meets a condition, as a {@link Poller}
 * does: the first call at once, then after each delay (10, 20, 30, 40 ms by default), up to
 * {@link #maxAttempts()} calls or until the {@link #timeout()}. When the condition is never met,
 * {@link PollExhaustedException} is thrown with the history of every attempt.
 * <p>
 * Settings come from {@code resilience.polls.<name>} when {@link #name()} is set, else from the
 * defaults given below; an attribute set here always wins, even when it equals that default
 * ({@code maxAttempts = 5} on settings of 10 makes 5). So each attribute's declared default is a
 * "not set" marker, never a value: the minimum {@code int}, {@code NaN}, an empty string or an
 * empty array. {@link #backoff()} and {@link #ignoreExceptions()} are arrays for that reason
 * only: write one value, as in {@code backoff = Backoff.FIXED} or {@code ignoreExceptions = true}.
 * String attributes take durations ({@code 250ms}, {@code 5s}, {@code PT5S}) and {@code ${...}}
 * placeholders.
 * <p>
 * Each attempt runs the advice ordered inside polling again (such as {@code @RateLimited}, so
 * every attempt asks the limiter); retries ({@code @Retryable}) run outside it.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PollUntil {

	/**
	 * Alias for {@link #name()}.
	 * @return the settings' name
	 */
	@AliasFor("name")
	String value() default "";

	/**
	 * Named settings under {@code resilience.polls.<name>}; empty for the defaults. Also the
	 * {@code name} tag of the meters, {@code ClassName.method} when empty.
	 * @return the settings' name
	 */
	@AliasFor("value")
	String name() default "";

	/**
	 * SpEL over {@code #result} and the arguments ({@code #id}, {@code #p0}, {@code #a0}) and
	 * beans ({@code @bean}); {@code true} ends the poll. Empty: the result is present, that is not
	 * {@code null}, not {@code false} and not an empty {@code Optional}.
	 * @return the condition
	 */
	String until() default "";

	/**
	 * Attempts in all; {@code -1} for unlimited, which needs a {@link #timeout()}. Not set (the
	 * marker {@code Integer.MIN_VALUE}): the named settings', else {@code 5}.
	 * @return the number of attempts
	 */
	int maxAttempts() default Integer.MIN_VALUE;

	/**
	 * The first delay, after the first attempt. Empty: the named settings' or {@code 10ms}.
	 * @return the delay
	 */
	String delay() default "";

	/**
	 * How the delay grows, one value: {@code backoff = Backoff.FIXED}. Empty (not set): the
	 * named settings', else {@link Backoff#LINEAR}.
	 * @return the backoff, at most one
	 */
	Backoff[] backoff() default {};

	/**
	 * The growth factor of {@link Backoff#EXPONENTIAL}. Not set (the marker {@code NaN}): the
	 * named settings', else {@code 2.0}.
	 * @return the multiplier
	 */
	double multiplier() default Double.NaN;

	/**
	 * The cap on one delay. Empty: the named settings' or {@code 10s}.
	 * @return the cap
	 */
	String maxDelay() default "";

	/**
	 * The overall deadline, counted from the start of the first attempt; an attempt that would
	 * begin past it is not made. Empty: the named settings', or none.
	 * @return the timeout
	 */
	String timeout() default "";

	/**
	 * Whether an exception of the method counts as an unmet attempt instead of ending the poll,
	 * one value: {@code ignoreExceptions = true}. Empty (not set): the named settings', else
	 * {@code false}.
	 * @return whether exceptions are ignored, at most one value
	 */
	boolean[] ignoreExceptions() default {};

}
