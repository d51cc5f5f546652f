package dev.resilience.autoconfigure.pool;

import java.util.function.Supplier;

import dev.resilience.autoconfigure.support.AnnotatedMethodAdvisor;
import dev.resilience.pool.WithConnection;

/**
 * Runs {@link WithConnection @WithConnection} methods with a connection of their pool, within one
 * deadline, on a worker thread carrying the caller's context. Innermost of the resilience advice
 * by default, so each retry or poll attempt gets its own deadline.
 */
public class WithConnectionAdvisor extends AnnotatedMethodAdvisor<WithConnectionMethod> {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the advisor.
	 * @param methods supplies the annotated methods when first needed; asked once
	 * @param order the advisor's order, {@code resilience.aspect-order.connection}
	 */
	public WithConnectionAdvisor(Supplier<? extends WithConnectionMethods> methods, int order) {
		super(WithConnection.class, methods, (invocation, method) -> method.invoke(invocation), order);
	}

}
