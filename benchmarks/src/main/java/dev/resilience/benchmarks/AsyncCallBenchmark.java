package dev.resilience.benchmarks;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
import reactor.core.publisher.Mono;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Retryable;

/**
 * A benchmark of asynchronous calls through the annotations, from the call to the outcome: a
 * method returning {@code Mono.just(value)} under our {@code @RateLimited("bench")} against the
 * same under Resilience4j's {@code @RateLimiter(name = "bench")} (its Reactor aspect, from
 * resilience4j-reactor), every call admitted, the {@code Mono} subscribed until it completes; and
 * a method returning a completed {@code CompletableFuture} under our {@code @Retryable("bench")}
 * against Resilience4j's {@code @Retry(name = "bench")}, succeeding at once, the future awaited.
 * Each in a small non-web application of its own that excludes the other library's
 * auto-configurations; {@code plain} is the unannotated method on an unproxied bean, the floor.
 * The benchmark thread is the caller: it waits for the outcome (as a test would), so a
 * continuation that our advice runs on another thread is paid for here.
 * <pre class="code">
 * benchmarks/run.sh AsyncCallBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Threads(1)
public class AsyncCallBenchmark {

	@Param({ "plain", "ours", "resilience4j" })
	String impl;

	private ConfigurableApplicationContext context;

	private Partner partner;

	// A field, not a constant, so that the JIT cannot fold the call away.
	private String argument = "hello";

	@Setup
	public void setup() {
		Map<String, String> properties = AnnotatedCallBenchmark.quietApplication();
		String rate = Long.toString(Contenders.UNLIMITED_RATE);
		switch (this.impl) {
			case "plain", "ours" -> {
				properties.put("resilience.rate-limiters.bench.token-bucket.capacity", rate);
				properties.put("resilience.rate-limiters.bench.token-bucket.refill-tokens", rate);
				properties.put("resilience.rate-limiters.bench.token-bucket.refill-period", "1s");
				properties.put("resilience.retries.bench.max-retries", "3");
				properties.put("resilience.retries.bench.delay", "10ms");
				properties.put("spring.autoconfigure.exclude",
						AnnotatedCallBenchmark.autoConfigurations(AnnotatedCallBenchmark.RESILIENCE4J_PACKAGE));
				this.context = AnnotatedCallBenchmark.start(OursApplication.class, properties);
				this.partner = this.context.getBean(this.impl.equals("ours") ? "oursPartner" : "plainPartner",
						Partner.class);
			}
			case "resilience4j" -> {
				// A tenth of the rate per 100 ms: Resilience4j's permits per period are an int.
				properties.put("resilience4j.ratelimiter.instances.bench.limit-for-period",
						Long.toString(Contenders.UNLIMITED_RATE / 10));
				properties.put("resilience4j.ratelimiter.instances.bench.limit-refresh-period", "100ms");
				properties.put("resilience4j.ratelimiter.instances.bench.timeout-duration", "0");
				properties.put("resilience4j.retry.instances.bench.max-attempts", "4");
				properties.put("resilience4j.retry.instances.bench.wait-duration", "10ms");
				properties.put("spring.autoconfigure.exclude",
						AnnotatedCallBenchmark.autoConfigurations(AnnotatedCallBenchmark.OURS_PACKAGE));
				this.context = AnnotatedCallBenchmark.start(Resilience4jApplication.class, properties);
				this.partner = this.context.getBean(Resilience4jPartner.class);
			}
			default -> throw new IllegalArgumentException("Unknown implementation '" + this.impl + "'");
		}
		if (!this.impl.equals("plain") && !AopUtils.isAopProxy(this.partner)) {
			throw new IllegalStateException("The annotated bean of '" + this.impl + "' is not proxied");
		}
		// Fail here, not in the middle of a measurement, if a contender does not give the value back.
		if (!this.argument.equals(mono()) || !this.argument.equals(future())) {
			throw new IllegalStateException("The calls of '" + this.impl + "' do not return their argument");
		}
	}

	@TearDown
	public void tearDown() {
		this.context.close();
	}

	/**
	 * Calls the rate-limited method and subscribes to its {@code Mono} until it completes.
	 * @return the value
	 */
	@Benchmark
	public String mono() {
		return this.partner.mono(this.argument).block();
	}

	/**
	 * Calls the retried method and waits for its future.
	 * @return the value
	 */
	@Benchmark
	public String future() {
		return this.partner.future(this.argument).join();
	}

	/**
	 * The methods under test.
	 */
	public interface Partner {

		/**
		 * Returns its argument in a {@code Mono}.
		 * @param value any value
		 * @return the value, when subscribed
		 */
		Mono<String> mono(String value);

		/**
		 * Returns its argument in a completed future.
		 * @param value any value
		 * @return the value
		 */
		CompletableFuture<String> future(String value);

	}

	/**
	 * {@link Partner} with no annotation.
	 */
	public static class PlainPartner implements Partner {

		@Override
		public Mono<String> mono(String value) {
			return Mono.just(value);
		}

		@Override
		public CompletableFuture<String> future(String value) {
			return CompletableFuture.completedFuture(value);
		}

	}

	/**
	 * {@link Partner} under our {@code @RateLimited} and {@code @Retryable}.
	 */
	public static class OursPartner implements Partner {

		@Override
		@RateLimited("bench")
		public Mono<String> mono(String value) {
			return Mono.just(value);
		}

		@Override
		@Retryable("bench")
		public CompletableFuture<String> future(String value) {
			return CompletableFuture.completedFuture(value);
		}

	}

	/**
	 * {@link Partner} under Resilience4j's {@code @RateLimiter} and {@code @Retry}.
	 */
	public static class Resilience4jPartner implements Partner {

		@Override
		@io.github.resilience4j.ratelimiter.annotation.RateLimiter(name = "bench")
		public Mono<String> mono(String value) {
			return Mono.just(value);
		}

		@Override
		@io.github.resilience4j.retry.annotation.Retry(name = "bench")
		public CompletableFuture<String> future(String value) {
			return CompletableFuture.completedFuture(value);
		}

	}

	/**
	 * The application with our starter's auto-configuration.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	public static class OursApplication {

		@Bean
		OursPartner oursPartner() {
			return new OursPartner();
		}

		@Bean
		PlainPartner plainPartner() {
			return new PlainPartner();
		}

	}

	/**
	 * The application with Resilience4j's auto-configuration.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	public static class Resilience4jApplication {

		@Bean
		Resilience4jPartner resilience4jPartner() {
			return new Resilience4jPartner();
		}

	}

}
