package dev.resilience.autoconfigure.support;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.OptionalInt;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;

/**
 * A SpEL expression of an annotation, parsed once for one method and evaluated per call. An
 * expression that only names an argument ({@code #customerId}, {@code #p0}, {@code #a0}) reads
 * it directly, with the value SpEL would give, and builds no evaluation context; any other
 * expression is evaluated by SpEL over the arguments, extra variables and beans. Create one with
 * {@link MethodExpressionEvaluator#parse(String, Method, String)}.
 */
public final class MethodExpression {

	private final MethodExpressionEvaluator evaluator;

	private final Expression expression;

	private final Method method;

	private final @Nullable String parameterName;

	private final int parameterIndex;

	MethodExpression(MethodExpressionEvaluator evaluator, Expression expression, Method method,
			@Nullable String parameterName, int parameterIndex) {
		this.evaluator = evaluator;
		this.expression = expression;
		this.method = method;
		this.parameterName = parameterName;
		this.parameterIndex = parameterIndex;
	}

	/**
	 * Returns the expression as written.
	 * @return the expression text
	 */
	public String getExpressionString() {
		return this.expression.getExpressionString();
	}

	/**
	 * Returns the argument this expression reads directly, when it only names one.
	 * @return the argument's index, or empty when SpEL evaluates the expression
	 */
	public OptionalInt getParameterIndex() {
		return (this.parameterName != null) ? OptionalInt.of(this.parameterIndex) : OptionalInt.empty();
	}

	/**
	 * Evaluates the expression for one call.
	 * @param arguments the call's arguments
	 * @return the value
	 */
	public @Nullable Object evaluate(@Nullable Object[] arguments) {
		return evaluate(arguments, Map.of());
	}

	/**
	 * Evaluates the expression for one call, with extra variables such as {@code result}; a
	 * variable hides an argument of the same name, as in SpEL.
	 * @param arguments the call's arguments
	 * @param variables the extra variables
	 * @return the value
	 */
	public @Nullable Object evaluate(@Nullable Object[] arguments, Map<String, @Nullable Object> variables) {
		String name = this.parameterName;
		if (name != null && !variables.containsKey(name)) {
			return (arguments != null && this.parameterIndex < arguments.length) ? arguments[this.parameterIndex] : null;
		}
		return this.evaluator.evaluate(this.expression, this.method, arguments, variables);
	}

	/**
	 * Evaluates a condition for one call, such as a retry's {@code retryIf} or a poll's
	 * {@code until}.
	 * @param arguments the call's arguments
	 * @param variables the extra variables, such as {@code result} or {@code exception}
	 * @return the condition's value
	 * @throws IllegalStateException naming the expression when it gives no {@code Boolean}
	 */
	public boolean evaluateCondition(@Nullable Object[] arguments, Map<String, @Nullable Object> variables) {
		Object value = evaluate(arguments, variables);
		if (value instanceof Boolean condition) {
			return condition;
		}
		throw new IllegalStateException("The condition '" + getExpressionString() + "' of " + this.method
				+ " must give true or false, but gave " + value);
	}

	@Override
	public String toString() {
		return getExpressionString();
	}

}
