package dev.resilience.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
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
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.resilience.poll.PollUntil;
import dev.resilience.poll.Poller;

/**
 * What waiting for a condition costs when it is already met, the overhead every poll pays: our
 * {@code @PollUntil} against what users write without it, Resilience4j's {@code @Retry} with a
 * result predicate (retry while the result is {@code null}), each in a small non-web application
 * of its own; and programmatically, our {@link Poller#await()} against Resilience4j's
 * {@code Retry.executeSupplier} with {@code retryOnResult}. {@code plain} calls the method or
 * supplier directly. Both wait 10 ms before a second attempt, which never comes.
 * <pre class="code">
 * benchmarks/run.sh PollBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Threads(1)
public class PollBenchmark {

	@Param({ "plain", "ours", "resilience4j" })
	String impl;

	private ConfigurableApplicationContext context;

	private Status status;

	private Supplier<String> polled;

	// A field, not a constant, so that the JIT cannot fold the call away.
	private String argument = "export-1";

	@Setup
	public void setup() {
		Map<String, String> properties = AnnotatedCallBenchmark.quietApplication();
		Supplier<String> supplier = () -> this.argument;
		switch (this.impl) {
			case "plain", "ours" -> {
				properties.put("spring.autoconfigure.exclude", AnnotatedCallBenchmark.autoConfigurations(AnnotatedCallBenchmark.RESILIENCE4J_PACKAGE));
				this.context = AnnotatedCallBenchmark.start(OursApplication.class, properties);
				this.status = this.context.getBean(this.impl.equals("ours") ? "oursStatus" : "plainStatus", Status.class);
				Poller<String> poller = Poller.builder(supplier, Objects::nonNull).build();
				this.polled = this.impl.equals("ours") ? poller::await : supplier;
			}
			case "resilience4j" -> {
				properties.put("resilience4j.retry.instances.bench.max-attempts", "5");
				properties.put("resilience4j.retry.instances.bench.wait-duration", "10ms");
				properties.put("resilience4j.retry.instances.bench.result-predicate", Absent.class.getName());
				properties.put("spring.autoconfigure.exclude", AnnotatedCallBenchmark.autoConfigurations(AnnotatedCallBenchmark.OURS_PACKAGE));
				this.context = AnnotatedCallBenchmark.start(Resilience4jApplication.class, properties);
				this.status = this.context.getBean(Resilience4jStatus.class);
				Retry retry = Retry.of("bench", RetryConfig.<String>custom()
					.maxAttempts(5)
					.waitDuration(Duration.ofMillis(10))
					.retryOnResult(Objects::isNull)
					.build());
				this.polled = () -> retry.executeSupplier(supplier);
			}
			default -> throw new IllegalArgumentException("Unknown implementation '" + this.impl + "'");
		}
		if (!this.impl.equals("plain") && !AopUtils.isAopProxy(this.status)) {
			throw new IllegalStateException("The annotated bean of '" + this.impl + "' is not proxied");
		}
	}

	@TearDown
	public void tearDown() {
		this.context.close();
	}

	@Benchmark
	public String annotated() {
		return this.status.status(this.argument);
	}

	@Benchmark
	public String programmatic() {
		return this.polled.get();
	}

	/**
	 * Resilience4j's result predicate: retry while the result is {@code null}.
	 */
	public static class Absent implements Predicate<Object> {

		@Override
		public boolean test(Object result) {
			return result == null;
		}

	}

	/**
	 * The polled method.
	 */
	public interface Status {

		/**
		 * Returns the status of an export, here its id, which is present at once.
		 * @param id the export
		 * @return the status
		 */
		String status(String id);

	}

	/**
	 * {@link Status} with no annotation.
	 */
	public static class PlainStatus implements Status {

		@Override
		public String status(String id) {
			return id;
		}

	}

	/**
	 * {@link Status} under our {@code @PollUntil}.
	 */
	public static class OursStatus implements Status {

		@Override
		@PollUntil
		public String status(String id) {
			return id;
		}

	}

	/**
	 * {@link Status} under Resilience4j's {@code @Retry}.
	 */
	public static class Resilience4jStatus implements Status {

		@Override
		@io.github.resilience4j.retry.annotation.Retry(name = "bench")
		public String status(String id) {
			return id;
		}

	}

	/**
	 * The application with our starter's auto-configuration.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	public static class OursApplication {

		@Bean
		OursStatus oursStatus() {
			return new OursStatus();
		}

		@Bean
		PlainStatus plainStatus() {
			return new PlainStatus();
		}

	}

	/**
	 * The application with Resilience4j's auto-configuration.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	public static class Resilience4jApplication {

		@Bean
		Resilience4jStatus resilience4jStatus() {
			return new Resilience4jStatus();
		}

	}

}
