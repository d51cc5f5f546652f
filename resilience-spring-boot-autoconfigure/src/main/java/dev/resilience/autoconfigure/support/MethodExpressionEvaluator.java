package dev.resilience.autoconfigure.support;

import java.lang.reflect.Method;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Parses and evaluates the SpEL expressions of the resilience annotations. Expressions are
 * parsed once, when the annotated method is first seen (at startup for singleton beans), and
 * evaluated per call over the method's arguments ({@code #name}, {@code #p0}, {@code #a0}),
 * extra variables such as {@code #result}, and beans ({@code @bean}).
 */
public final class MethodExpressionEvaluator {

	private final SpelExpressionParser parser = new SpelExpressionParser(
			new SpelParserConfiguration(SpelCompilerMode.MIXED, MethodExpressionEvaluator.class.getClassLoader()));

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final @Nullable BeanFactory beanFactory;

	/**
	 * Creates an evaluator.
	 * @param beanFactory resolves {@code @bean} references, or {@code null} for none
	 */
	public MethodExpressionEvaluator(@Nullable BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Parses an expression.
	 * @param expression the SpEL text
	 * @param where what the expression belongs to, such as {@code @RateLimited(key) on Foo.bar(String)}
	 * @return the parsed expression
	 * @throws IllegalStateException naming {@code where} and the expression if it does not parse
	 */
	public Expression parse(String expression, String where) {
		try {
			return this.parser.parseExpression(expression);
		}
		catch (ParseException ex) {
			throw new IllegalStateException(
					"The SpEL expression '" + expression + "' of " + where + " does not parse: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Evaluates an expression for one call.
	 * @param expression the parsed expression
	 * @param method the annotated method
	 * @param arguments the call's arguments
	 * @param variables extra variables, such as {@code result}
	 * @return the value
	 */
	public @Nullable Object evaluate(Expression expression, Method method, @Nullable Object[] arguments,
			Map<String, @Nullable Object> variables) {
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method, arguments,
				this.parameterNames);
		if (this.beanFactory != null) {
			context.setBeanResolver(new BeanFactoryResolver(this.beanFactory));
		}
		variables.forEach(context::setVariable);
		return expression.getValue(context);
	}

}
