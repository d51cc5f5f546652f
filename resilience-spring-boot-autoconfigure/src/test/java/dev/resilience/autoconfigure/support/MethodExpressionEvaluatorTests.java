package dev.resilience.autoconfigure.support;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link MethodExpressionEvaluator}: an expression naming an argument reads it
 * directly, any other goes through SpEL, and both give SpEL's value.
 */
class MethodExpressionEvaluatorTests {

	private static final Method FETCH = ReflectionUtils.findMethod(Client.class, "fetch", String.class, long.class);

	private static final Object[] ARGUMENTS = { "alice", 42L };

	private final MethodExpressionEvaluator evaluator = new MethodExpressionEvaluator(beanFactory());

	@Test
	void parameterReferencesShouldReadTheArgumentDirectly() {
		assertDirect("#customerId", 0, "alice");
		assertDirect("#orderId", 1, 42L);
		assertDirect("#p0", 0, "alice");
		assertDirect("#a1", 1, 42L);
		assertDirect(" #p1 ", 1, 42L);
	}

	@Test
	void otherExpressionsShouldBeEvaluatedBySpel() {
		assertSpel("#customerId.toUpperCase()", "ALICE");
		assertSpel("#customerId + '-' + #orderId", "alice-42");
		assertSpel("@tenant", "acme");
		assertSpel("#root", null);
		assertSpel("{'a', 'bb'}.?[#this.length() > 1][0]", "bb");
		assertSpel("(#copy = #customerId) + #copy", "alicealice");
		assertSpel("'constant'", "constant");
	}

	@Test
	void variableShouldHideAnArgumentOfTheSameName() {
		MethodExpression expression = this.evaluator.parse("#customerId", FETCH, "test");
		assertThat(expression.evaluate(ARGUMENTS, Map.of("customerId", "bob"))).isEqualTo("bob");
		assertThat(expression.evaluate(ARGUMENTS, Map.of("result", "x"))).isEqualTo("alice");
	}

	@Test
	void trailingVarargsParameterShouldBeEvaluatedBySpel() {
		Method join = ReflectionUtils.findMethod(Client.class, "join", String.class, String[].class);
		assertThat(this.evaluator.parse("#parts", join, "test").getParameterIndex()).isEmpty();
		assertThat(this.evaluator.parse("#separator", join, "test").getParameterIndex()).hasValue(0);
	}

	/** A misspelled argument would be null at every call: a shared bucket, a condition never met. */
	@Test
	void variableThatIsNoArgumentShouldFailNamingTheMethodTheExpressionAndTheArguments() {
		assertThatExceptionOfType(ResilienceConfigurationException.class)
			.isThrownBy(() -> this.evaluator.parse("#customerID", FETCH, "@RateLimited on Client.fetch(String, long) (key)"))
			.withMessage("The SpEL expression '#customerID' of @RateLimited on Client.fetch(String, long) (key) names "
					+ "#customerID, which is not an argument of the method; the method's arguments are [#customerId, #orderId]")
			.satisfies((ex) -> assertThat(ex.getAction()).isEqualTo("Did you mean #customerId? Name an argument of the "
					+ "method, by its name or by its position (#p0 or #a0)."));
		assertThatExceptionOfType(ResilienceConfigurationException.class)
			.isThrownBy(() -> this.evaluator.parse("#customerId + #ordrId.toString()", FETCH, "test"))
			.withMessageContaining("names #ordrId,");
		assertThatExceptionOfType(ResilienceConfigurationException.class)
			.isThrownBy(() -> this.evaluator.parse("#p2", FETCH, "test"))
			.withMessageContaining("names #p2,");
		assertThatExceptionOfType(ResilienceConfigurationException.class)
			.isThrownBy(() -> this.evaluator.parse("#result", FETCH, "test"))
			.withMessageContaining("names #result,");
	}

	@Test
	void variableThatIsNeitherArgumentNorGivenShouldListBoth() {
		assertThatExceptionOfType(ResilienceConfigurationException.class)
			.isThrownBy(() -> this.evaluator.parse("#reslt == 'DONE'", FETCH, "test", Set.of("result")))
			.withMessage("The SpEL expression '#reslt == 'DONE'' of test names #reslt, which is not an argument of the "
					+ "method nor a variable it is given; the method's arguments are [#customerId, #orderId], its "
					+ "variables [#result]")
			.satisfies((ex) -> assertThat(ex.getAction()).startsWith("Did you mean #result? ")
				.endsWith(", or one of the variables [#result]."));
	}

	@Test
	void argumentsPositionsRootThisBeansAndGivenVariablesShouldBeAccepted() {
		for (String text : List.of("#p1", "#a0", "#root", "#this", "@tenant", "#customerId.length() > #orderId",
				"#exception.message + #p0")) {
			assertThat(this.evaluator.parse(text, FETCH, "test", Set.of("exception")).getExpressionString()).isEqualTo(text);
		}
	}

	@Test
	void expressionThatDoesNotParseShouldFailNamingWhereItIs() {
		assertThatIllegalStateException().isThrownBy(() -> this.evaluator.parse("#customerId +", FETCH, "the test"))
			.withMessageStartingWith("The SpEL expression '#customerId +' of the test does not parse: ");
	}

	@Test
	void conditionShouldGiveTheBooleanOverArgumentsAndVariables() {
		MethodExpression condition = this.evaluator.parse("#result == #customerId", FETCH, "test", Set.of("result"));
		assertThat(condition.evaluateCondition(ARGUMENTS, Map.of("result", "alice"))).isTrue();
		assertThat(condition.evaluateCondition(ARGUMENTS, Map.of("result", "bob"))).isFalse();
	}

	@Test
	void conditionThatGivesNoBooleanShouldFailNamingTheExpressionAndMethod() {
		MethodExpression notBoolean = this.evaluator.parse("#orderId", FETCH, "test");
		assertThatIllegalStateException().isThrownBy(() -> notBoolean.evaluateCondition(ARGUMENTS, Map.of()))
			.withMessage("The condition '#orderId' of " + FETCH + " must give true or false, but gave 42");
		MethodExpression nothing = this.evaluator.parse("#result", FETCH, "test", Set.of("result"));
		assertThatIllegalStateException().isThrownBy(() -> nothing.evaluateCondition(ARGUMENTS, Map.of()))
			.withMessageEndingWith("but gave null");
	}

	private void assertDirect(String text, int index, Object value) {
		MethodExpression expression = this.evaluator.parse(text, FETCH, "test");
		assertThat(expression.getParameterIndex()).as(text).hasValue(index);
		assertThat(expression.evaluate(ARGUMENTS)).as(text).isEqualTo(value);
		assertThat(this.evaluator.evaluate(this.evaluator.parse(text, "test"), FETCH, ARGUMENTS, Map.of()))
			.as("SpEL's value of %s", text)
			.isEqualTo(value);
	}

	private void assertSpel(String text, Object value) {
		MethodExpression expression = this.evaluator.parse(text, FETCH, "test");
		assertThat(expression.getParameterIndex()).as(text).isEmpty();
		assertThat(expression.evaluate(ARGUMENTS)).as(text).isEqualTo(value);
	}

	private static DefaultListableBeanFactory beanFactory() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerSingleton("tenant", "acme");
		return beanFactory;
	}

	static class Client {

		String fetch(String customerId, long orderId) {
			return customerId + orderId;
		}

		String join(String separator, String... parts) {
			return String.join(separator, parts);
		}

	}

}
