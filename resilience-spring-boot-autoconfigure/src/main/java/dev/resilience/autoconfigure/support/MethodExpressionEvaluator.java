package dev.resilience.autoconfigure.support;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

	/** {@code #name}: a variable alone, which may be an argument read without SpEL. */
	private static final Pattern VARIABLE = Pattern.compile("#([A-Za-z_$][A-Za-z0-9_$]*)");

	private final SpelExpressionParser parser = new SpelExpressionParser(
			new SpelParserConfiguration(SpelCompilerMode.MIXED, MethodExpressionEvaluator.class.getClassLoader()));

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final @Nullable BeanFactoryResolver beanResolver;

	/**
	 * Creates an evaluator.
	 * @param beanFactory resolves {@code @bean} references, or {@code null} for none
	 */
	public MethodExpressionEvaluator(@Nullable BeanFactory beanFactory) {
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
	}

	/**
	 * Parses an expression of one method's annotation. An expression that only names an
	 * argument will read it directly at each call.
	 * @param expression the SpEL text
	 * @param method the annotated method, whose parameters the expression may name
	 * @param where what the expression belongs to, such as {@code @RateLimited on Foo.bar(String) (key)}
	 * @return the parsed expression
	 * @throws IllegalStateException naming {@code where} and the expression if it does not parse
	 */
	public MethodExpression parse(String expression, Method method, String where) {
		Expression parsed = parse(expression, where);
		Matcher variable = VARIABLE.matcher(expression.trim());
		if (variable.matches()) {
			String name = variable.group(1);
			int index = parameterIndex(method, name);
			if (index >= 0) {
				return new MethodExpression(this, parsed, method, name, index);
			}
		}
		return new MethodExpression(this, parsed, method, null, -1);
	}

	/**
	 * The argument SpEL's {@link MethodBasedEvaluationContext} would give for the variable, or -1
	 * when it gives none or needs SpEL: it sets {@code a<i>}, {@code p<i>} and then the name of
	 * each parameter in turn, so the last one set wins; {@code #root} and {@code #this} are not
	 * variables, and a trailing varargs parameter may gather several arguments.
	 */
	private int parameterIndex(Method method, String name) {
		if (name.equals("root") || name.equals("this")) {
			return -1;
		}
		String[] names = this.parameterNames.getParameterNames(method);
		int count = (names != null) ? names.length : method.getParameterCount();
		int index = -1;
		for (int i = 0; i < count; i++) {
			if (name.equals("a" + i) || name.equals("p" + i) || (names != null && name.equals(names[i]))) {
				index = i;
			}
		}
		return (method.isVarArgs() && index == count - 1) ? -1 : index;
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
		if (this.beanResolver != null) {
			context.setBeanResolver(this.beanResolver);
		}
		variables.forEach(context::setVariable);
		return expression.getValue(context);
	}

}
