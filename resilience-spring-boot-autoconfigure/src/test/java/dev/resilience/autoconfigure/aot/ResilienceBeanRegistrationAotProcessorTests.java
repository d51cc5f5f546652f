package dev.resilience.autoconfigure.aot;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.pool.WithConnection;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs Spring's AOT processing on a context with the starter, a pool and an annotated bean: it
 * completes (a pool's bean, created by an instance supplier, stays out of the generated code and
 * is registered when the generated context starts), and the annotated bean's methods are
 * registered for reflection while other beans' are not.
 */
class ResilienceBeanRegistrationAotProcessorTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner(GenericApplicationContext::new)
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RetryAutoConfiguration.class,
				ConnectionPoolAutoConfiguration.class))
		.withPropertyValues("resilience.pools.partner-workers.max-size=2")
		.withBean("invoices", Invoices.class)
		.withBean("plain", Plain.class);

	@Test
	void processAheadOfTimeShouldLeaveThePoolsToTheRegistrarAndHintAnnotatedBeans() {
		this.contextRunner.prepare((context) -> {
			InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
			DefaultGenerationContext generation = new DefaultGenerationContext(
					new ClassNameGenerator(ClassName.get("dev.resilience.aot", "Test")), files);
			new ApplicationContextAotGenerator()
				.processAheadOfTime(context.getSourceApplicationContext(GenericApplicationContext.class), generation);
			generation.writeGeneratedContent();
			StringBuilder code = new StringBuilder();
			for (String path : files.getGeneratedFiles(Kind.SOURCE).keySet()) {
				code.append(files.getGeneratedFileContent(Kind.SOURCE, path));
			}
			assertThat(code).contains("\"invoices\"", "resilienceConnectionPoolRegistrar")
				.doesNotContain("\"partner-workers\"");
			assertThat(RuntimeHintsPredicates.reflection()
				.onType(Invoices.class)
				.withMemberCategories(MemberCategory.INVOKE_DECLARED_METHODS)).accepts(generation.getRuntimeHints());
			assertThat(RuntimeHintsPredicates.reflection()
				.onType(Plain.class)
				.withMemberCategories(MemberCategory.INVOKE_DECLARED_METHODS)).rejects(generation.getRuntimeHints());
		});
	}

	@Test
	void annotatedClassesShouldBeFoundByTheirMethodsOrTheirType() {
		assertThat(Stream.of(Invoices.class, Pooled.class, Plain.class)
			.filter(ResilienceBeanRegistrationAotProcessor::isAnnotated)).containsExactly(Invoices.class, Pooled.class);
	}

	static class Invoices {

		@Retryable
		public String fetch(String id) {
			return id;
		}

	}

	@WithConnection("partner-workers")
	static class Pooled {

		public String call() {
			return "";
		}

	}

	static class Plain {

		public String call() {
			return "";
		}

	}

}
