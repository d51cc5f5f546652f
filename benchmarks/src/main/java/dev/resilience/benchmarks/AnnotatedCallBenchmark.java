package dev.resilience.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.resilience.ratelimit.RateLimited;

/**
 * A benchmark of a call through a rate limiting annotation: the same trivial method on a Spring
 * bean under our {@code @RateLimited("bench")} and under Resilience4j's
 * {@code @RateLimiter(name = "bench")}, each in a small non-web application of its own that
 * excludes the other library's auto-configurations, and with no annotation as the baseline.
 * Both limiters admit every call.
 * <pre class="code">
 * benchmarks/run.sh AnnotatedCallBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Threads(1)
public class AnnotatedCallBenchmark {

	private static final String OURS_PACKAGE = "dev.resilience.";

	private static final String RESILIENCE4J_PACKAGE = "io.github.resilience4j.";

	@Param({ "plain", "ours", "resilience4j" })
	String impl;

	private ConfigurableApplicationContext context;

	private Echo echo;

	// A field, not a constant, so that the JIT cannot fold the call away.
	private String argument = "hello";

	@Setup
	public void setup() {
		Map<String, String> properties = quietApplication();
		String rate = Long.toString(Contenders.UNLIMITED_RATE);
		switch (this.impl) {
			case "plain", "ours" -> {
				properties.put("resilience.rate-limiters.bench.token-bucket.capacity", rate);
				properties.put("resilience.rate-limiters.bench.token-bucket.refill-tokens", rate);
				properties.put("resilience.rate-limiters.bench.token-bucket.refill-period", "1s");
				properties.put("spring.autoconfigure.exclude", autoConfigurations(RESILIENCE4J_PACKAGE));
				this.context = start(OursApplication.class, properties);
				this.echo = this.context.getBean(this.impl.equals("ours") ? "oursEcho" : "plainEcho", Echo.class);
			}
			case "resilience4j" -> {
				// A tenth of the rate per 100 ms: Resilience4j's permits per period are an int.
				properties.put("resilience4j.ratelimiter.instances.bench.limit-for-period",
						Long.toString(Contenders.UNLIMITED_RATE / 10));
				properties.put("resilience4j.ratelimiter.instances.bench.limit-refresh-period", "100ms");
				properties.put("resilience4j.ratelimiter.instances.bench.timeout-duration", "0");
				properties.put("spring.autoconfigure.exclude", autoConfigurations(OURS_PACKAGE));
				this.context = start(Resilience4jApplication.class, properties);
				this.echo = this.context.getBean(Resilience4jEcho.class);
			}
			default -> throw new IllegalArgumentException("Unknown implementation '" + this.impl + "'");
		}
		if (!this.impl.equals("plain") && !AopUtils.isAopProxy(this.echo)) {
			throw new IllegalStateException("The annotated bean of '" + this.impl + "' is not proxied");
		}
	}

	@TearDown
	public void tearDown() {
		this.context.close();
	}

	@Benchmark
	public String call() {
		return this.echo.echo(this.argument);
	}

	/**
	 * Returns the properties of a quiet non-web application, to add a benchmark's own to.
	 * @return a new modifiable map
	 */
	static Map<String, String> quietApplication() {
		Map<String, String> properties = new LinkedHashMap<>();
		properties.put("spring.main.web-application-type", "none");
		properties.put("spring.main.banner-mode", "off");
		properties.put("spring.main.log-startup-info", "false");
		properties.put("logging.level.root", "warn");
		return properties;
	}

	static ConfigurableApplicationContext start(Class<?> application, Map<String, String> properties) {
		List<String> arguments = properties.entrySet()
			.stream()
			.map((property) -> "--" + property.getKey() + "=" + property.getValue())
			.toList();
		return new SpringApplicationBuilder(application).run(arguments.toArray(String[]::new));
	}

	/**
	 * Returns the auto-configurations on the class path whose class name starts with a prefix.
	 * @param prefix the package prefix
	 * @return the class names, comma separated
	 */
	static String autoConfigurations(String prefix) {
		return ImportCandidates.load(AutoConfiguration.class, AnnotatedCallBenchmark.class.getClassLoader())
			.getCandidates()
			.stream()
			.filter((name) -> name.startsWith(prefix))
			.collect(Collectors.joining(","));
	}

	/**
	 * The method under test.
	 */
	public interface Echo {

		/**
		 * Returns its argument.
		 * @param value any value
		 * @return the value
		 */
		String echo(String value);

	}

	/**
	 * {@link Echo} with no annotation.
	 */
	public static class PlainEcho implements Echo {

		@Override
		public String echo(String value) {
			return value;
		}

	}

	/**
	 * {@link Echo} under our {@code @RateLimited}.
	 */
	public static class OursEcho implements Echo {

		@Override
		@RateLimited("bench")
		public String echo(String value) {
			return value;
		}

	}

	/**
	 * {@link Echo} under Resilience4j's {@code @RateLimiter}.
	 */
	public static class Resilience4jEcho implements Echo {

		@Override
		@io.github.resilience4j.ratelimiter.annotation.RateLimiter(name = "bench")
		public String echo(String value) {
			return value;
		}

	}

	/**
	 * The application with our starter's auto-configuration.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	public static class OursApplication {

		@Bean
		OursEcho oursEcho() {
			return new OursEcho();
		}

		@Bean
		PlainEcho plainEcho() {
			return new PlainEcho();
		}

	}

	/**
	 * The application with Resilience4j's auto-configuration.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	public static class Resilience4jApplication {

		@Bean
		Resilience4jEcho resilience4jEcho() {
			return new Resilience4jEcho();
		}

	}

}
