package dev.resilience.ratelimit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

/**
 * Limits how often the annotated method runs, through the rate limiter configured under
 * {@code resilience.rate-limiters.<name>}. A rejected call throws
 * {@link RateLimitExceededException} and the method does not run.
 * <p>
 * Repeatable: a method may carry a per-user and a global limiter at once; all of them must admit
 * the call, asked in declaration order, and a call rejected by one consumes nothing from the
 * others. On a type (class or interface), it applies to every public method of the bean, inherited
 * ones included, before the method's own annotations.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

	/**
	 * Alias for {@link #name()}.
	 * @return the limiter's name
	 */
	@AliasFor("name")
	String value() default "";

	/**
	 * The limiter, configured under {@code resilience.rate-limiters.<name>}.
	 * @return the limiter's name
	 */
	@AliasFor("value")
	String name() default "";

	/**
	 * SpEL over the arguments ({@code #customerId}, {@code #p0}, {@code #a0}) and beans
	 * ({@code @bean}) choosing the bucket. Empty: one bucket for the limiter. An expression that
	 * evaluates to {@code null} or to an empty string is an error.
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * The tokens (and window slots) one call consumes.
	 * @return the cost, positive and within what every constraint admits
	 */
	int cost() default 1;

	/**
	 * Overrides the limiter's {@code max-wait}: how long a call may wait for a slot, as a
	 * duration ({@code 250ms}, {@code 5s}, {@code PT1S}) or a {@code ${...}} placeholder.
	 * Empty: the limiter's {@code max-wait}.
	 * @return the longest wait
	 */
	String maxWait() default "";

	/**
	 * Holds repeated {@link RateLimited} annotations.
	 */
	@Target({ ElementType.METHOD, ElementType.TYPE })
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	@Inherited
	@interface List {

		/**
		 * The repeated annotations.
		 * @return the annotations
		 */
		RateLimited[] value();

	}

}
