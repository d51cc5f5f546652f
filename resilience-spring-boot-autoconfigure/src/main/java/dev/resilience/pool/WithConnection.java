package dev.resilience.pool;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

/**
 * Runs the annotated method with a connection of the pool configured under
 * {@code resilience.pools.<pool>}, within one deadline that covers both waiting for the
 * connection and running the method. Inside the method, {@link ConnectionPool#current()} gives the
 * connection.
 * <p>
 * No connection in time: {@link CheckoutTimeoutException}, and the method does not run. The method
 * still running at the deadline: {@link OperationTimeoutException}, thrown to the caller at the
 * deadline even if the method ignores interruption; the method is interrupted and its connection
 * is never handed out again. The method runs on another thread, which carries the caller's
 * context (MDC, Micrometer observation, Spring Security). On a type (class or interface), it
 * applies to every public method of the bean; a method's own annotation replaces the type's.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface WithConnection {

	/**
	 * Alias for {@link #pool()}.
	 * @return the pool's name
	 */
	@AliasFor("pool")
	String value() default "";

	/**
	 * The pool, configured under {@code resilience.pools.<pool>}.
	 * @return the pool's name
	 */
	@AliasFor("value")
	String pool() default "";

	/**
	 * The deadline of one call, checkout and execution together, as a duration ({@code 250ms},
	 * {@code 15s}, {@code PT15S}) or a {@code ${...}} placeholder. Empty: the pool's
	 * {@code timeout}.
	 * @return the deadline
	 */
	String timeout() default "";

}
