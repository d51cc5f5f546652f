package dev.resilience.autoconfigure.support;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.Assign;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
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
	 * Parses an expression of one method's annotation that may name only the method's arguments
	 * and beans. An expression that only names an argument will read it directly at each call.
	 * @param expression the SpEL text
	 * @param method the annotated method, whose parameters the expression may name
	 * @param where what the expression belongs to, such as {@code @RateLimited on Foo.bar(String) (key)}
	 * @return the parsed expression
	 * @throws ResilienceConfigurationException naming {@code where} and the expression if it does
	 * not parse or names a variable that is not an argument of the method
	 */
	public MethodExpression parse(String expression, Method method, String where) {
		return parse(expression, method, where, Set.of());
	}

	/**
	 * Parses an expression of one method's annotation, evaluated with extra variables besides the
	 * arguments, such as {@code result}. An expression that only names an argument will read it
	 * directly at each call.
	 * @param expression the SpEL text
	 * @param method the annotated method, whose parameters the expression may name
	 * @param where what the expression belongs to, such as {@code @RateLimited on Foo.bar(String) (key)}
	 * @param variables the names of the extra variables each evaluation sets
	 * @return the parsed expression
	 * @throws ResilienceConfigurationException naming {@code where} and the expression if it does
	 * not parse or names a variable that is neither an argument of the method nor one of
	 * {@code variables}: a misspelled argument would always be {@code null}
	 */
	public MethodExpression parse(String expression, Method method, String where, Set<String> variables) {
		Expression parsed = parse(expression, where);
		checkVariables(parsed, method, where, variables);
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
	 * Refuses a variable the evaluation would not define: {@link MethodBasedEvaluationContext}
	 * defines the arguments by name, {@code #p<i>} and {@code #a<i>}; SpEL itself {@code #root}
	 * and {@code #this}; the caller, {@code variables}; the expression itself, those it assigns.
	 */
	private void checkVariables(Expression parsed, Method method, String where, Set<String> variables) {
		if (!(parsed instanceof SpelExpression spel)) {
			return;
		}
		Set<String> named = new LinkedHashSet<>();
		Set<String> assigned = new LinkedHashSet<>();
		collectVariables(spel.getAST(), named, assigned);
		String[] names = this.parameterNames.getParameterNames(method);
		List<String> arguments = (names != null) ? List.of(names) : List.of();
		for (String name : named) {
			if (!assigned.contains(name) && !variables.contains(name) && !name.equals("root") && !name.equals("this")
					&& !arguments.contains(name) && !isPositional(name, method.getParameterCount())) {
				throw unknownVariable(parsed.getExpressionString(), name, where, method, names, variables);
			}
		}
	}

	private static ResilienceConfigurationException unknownVariable(String expression, String name, String where,
			Method method, String @Nullable [] names, Set<String> variables) {
		// A Kotlin suspend function's names leave out its trailing Continuation.
		List<String> arguments = new ArrayList<>();
		for (int i = 0; i < ((names != null) ? names.length : method.getParameterCount()); i++) {
			arguments.add((names != null) ? "#" + names[i] : "#p" + i);
		}
		List<String> given = variables.stream().sorted().map((variable) -> "#" + variable).toList();
		List<String> known = new ArrayList<>(arguments);
		known.addAll(given);
		String closest = ClosestName.of("#" + name, known);
		String message = "The SpEL expression '" + expression + "' of " + where + " names #" + name
				+ ", which is not an argument of the method" + (given.isEmpty() ? "" : " nor a variable it is given")
				+ "; the method's arguments are " + arguments + (given.isEmpty() ? "" : ", its variables " + given);
		String action = ((closest != null) ? "Did you mean " + closest + "? " : "")
				+ "Name an argument of the method, by its name or by its position (#p0 or #a0)"
				+ (given.isEmpty() ? "" : ", or one of the variables " + given)
				+ ((names == null && method.getParameterCount() > 0)
						? "; to name arguments by their names, compile with -parameters" : "")
				+ ".";
		return new ResilienceConfigurationException(message, action);
	}

	private static void collectVariables(SpelNode node, Set<String> named, Set<String> assigned) {
		if (node instanceof VariableReference) {
			named.add(node.toStringAST().substring(1));
		}
		if (node instanceof Assign && node.getChildCount() > 0 && node.getChild(0) instanceof VariableReference target) {
			assigned.add(target.toStringAST().substring(1));
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collectVariables(node.getChild(i), named, assigned);
		}
	}

	/** {@code p<i>} or {@code a<i>} for an index the method has. */
	private static boolean isPositional(String name, int parameterCount) {
		if (name.length() < 2 || (name.charAt(0) != 'p' && name.charAt(0) != 'a')) {
			return false;
		}
		String index = name.substring(1);
		return index.matches("0|[1-9][0-9]{0,8}") && Integer.parseInt(index) < parameterCount;
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
	 * @throws ResilienceConfigurationException naming {@code where} and the expression if it does
	 * not parse
	 */
	public Expression parse(String expression, String where) {
		try {
			return this.parser.parseExpression(expression);
		}
		catch (ParseException ex) {
			throw new ResilienceConfigurationException(
					"The SpEL expression '" + expression + "' of " + where + " does not parse: " + ex.getMessage(),
					"Correct the expression: it is Spring Expression Language over the method's arguments (#name, "
							+ "#p0, #a0) and beans (@name).",
					ex);
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
