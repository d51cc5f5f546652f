package dev.resilience.autoconfigure.aot;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.type.filter.AnnotationTypeFilter;

import dev.resilience.autoconfigure.actuate.ResilienceEndpoint;
import dev.resilience.autoconfigure.pool.ConnectionPoolProperties;
import dev.resilience.autoconfigure.ratelimit.RateLimiterProperties;
import dev.resilience.autoconfigure.retry.RetryProperties;
import dev.resilience.pool.ConnectionPoolStats;
import dev.resilience.pool.WithConnection;
import dev.resilience.ratelimit.RateLimited;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests the runtime hints the starter contributes for native images, with
 * {@link RuntimeHintsPredicates}, and that {@code aot.factories} names them.
 */
class ResilienceRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	ResilienceRuntimeHintsTests() {
		new ResilienceRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void aotFactoriesShouldNameTheRegistrarAndTheProcessor() {
		SpringFactoriesLoader loader = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories");
		assertThat(loader.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(ResilienceRuntimeHints.class);
		assertThat(loader.load(org.springframework.beans.factory.aot.BeanRegistrationAotProcessor.class))
			.hasAtLeastOneElementOfType(ResilienceBeanRegistrationAotProcessor.class);
	}

	@Test
	void annotationAttributesShouldBeReadableAndSynthesizable() throws Exception {
		for (Class<?> annotation : ResilienceRuntimeHints.ANNOTATIONS) {
			assertThat(RuntimeHintsPredicates.reflection().onType(annotation).withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS))
				.accepts(this.hints);
			assertThat(RuntimeHintsPredicates.proxies().forInterfaces(annotation)).accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimited.class.getMethod("key")))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(WithConnection.class.getMethod("timeout")))
			.accepts(this.hints);
	}

	@Test
	void propertiesShouldBeBindable() {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimiterProperties.class, "setMaxWait"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RateLimiterProperties.Window.class, "setLimit"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RetryProperties.class, "setMaxRetries"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ConnectionPoolProperties.class, "setMaxSize"))
			.accepts(this.hints);
	}

	@Test
	void everyConfigurationPropertiesClassOfTheStarterShouldBeListed() {
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
		scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
		List<String> annotated = scanner.findCandidateComponents("dev.resilience")
			.stream()
			.map(BeanDefinition::getBeanClassName)
			.toList();
		assertThat(annotated).isNotEmpty();
		assertThat(ResilienceRuntimeHints.PROPERTIES).extracting(Class::getName).containsAll(annotated);
	}

	@Test
	void everyLuaScriptOfTheRedisStoreShouldBeIncluded() throws Exception {
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:" + ResilienceRuntimeHints.SCRIPTS);
		assertThat(scripts).extracting(Resource::getFilename)
			.contains("decide.lua", "give_back.lua", "release.lua", "helpers.lua");
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource().forResource("dev/resilience/ratelimit/redis/" + script.getFilename()))
				.accepts(this.hints);
		}
	}

	@Test
	void responseRecordsShouldBeWritableAsJson() {
		List<Class<?>> records = Arrays.stream(ResilienceEndpoint.class.getDeclaredClasses())
			.filter(Class::isRecord)
			.toList();
		assertThat(records).hasSizeGreaterThanOrEqualTo(10);
		for (Class<?> type : records) {
			assertAccessorsInvocable(type);
		}
		assertAccessorsInvocable(ConnectionPoolStats.class);
	}

	private void assertAccessorsInvocable(Class<?> record) {
		for (RecordComponent component : record.getRecordComponents()) {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(component.getAccessor()))
				.as("%s.%s()", record.getSimpleName(), component.getName())
				.accepts(this.hints);
		}
	}

}
