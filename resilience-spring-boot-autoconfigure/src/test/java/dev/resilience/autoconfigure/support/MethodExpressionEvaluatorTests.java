package dev.resilience.autoconfigure.support;

import java.lang.reflect.Method;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
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
		assertSpel("#p2", null);
		assertSpel("#unknown", null);
		assertSpel("#root", null);
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

	@Test
	void expressionThatDoesNotParseShouldFailNamingWhereItIs() {
		assertThatIllegalStateException().isThrownBy(() -> this.evaluator.parse("#customerId +", FETCH, "the test"))
			.withMessageStartingWith("The SpEL expression '#customerId +' of the test does not parse: ");
	}

	@Test
	void conditionShouldGiveTheBooleanOverArgumentsAndVariables() {
		MethodExpression condition = this.evaluator.parse("#result == #customerId", FETCH, "test");
		assertThat(condition.evaluateCondition(ARGUMENTS, Map.of("result", "alice"))).isTrue();
		assertThat(condition.evaluateCondition(ARGUMENTS, Map.of("result", "bob"))).isFalse();
	}

	@Test
	void conditionThatGivesNoBooleanShouldFailNamingTheExpressionAndMethod() {
		MethodExpression notBoolean = this.evaluator.parse("#orderId", FETCH, "test");
		assertThatIllegalStateException().isThrownBy(() -> notBoolean.evaluateCondition(ARGUMENTS, Map.of()))
			.withMessage("The condition '#orderId' of " + FETCH + " must give true or false, but gave 42");
		MethodExpression nothing = this.evaluator.parse("#result", FETCH, "test");
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
