package dev.resilience.benchmarks;

import java.util.Map;
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

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;

/**
 * A benchmark of one rejection through {@code @RateLimited}: a Spring bean's method under a
 * keyed limiter shaped like the sample's {@code partner-server} (two exact windows), drained
 * before measuring so that every call is rejected; the caller catches the
 * {@link RateLimitExceededException} and returns it, as a web handler would receive it. The same
 * method under a limiter that admits every call is measured beside it, and the rejection with the
 * stack trace every rejection recorded in earlier versions
 * ({@code resilience.rate-limit-stack-traces=true}), so that the three can be compared within one
 * run.
 * <pre class="code">
 * flock /work/bench.lock benchmarks/run.sh RejectedCallBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Threads(1)
public class RejectedCallBenchmark {

	/**
	 * {@code ours}: rejected, as configured by default; {@code stack_traces}: rejected, each rejection
	 * recording its stack trace as in earlier versions; {@code admitted}: every call admitted.
	 */
	@Param({ "ours", "stack_traces", "admitted" })
	String impl;

	private ConfigurableApplicationContext context;

	private Quota quota;

	// A field, not a constant, so that the JIT cannot fold the key away.
	private String apiKey = "key-1";

	@Setup
	public void setup() {
		Map<String, String> properties = AnnotatedCallBenchmark.quietApplication();
		// Windows far longer than a run: once drained, nothing comes back while measuring.
		properties.put("resilience.rate-limiters.rejecting.windows[0].limit", "30");
		properties.put("resilience.rate-limiters.rejecting.windows[0].period", "1h");
		properties.put("resilience.rate-limiters.rejecting.windows[1].limit", "300");
		properties.put("resilience.rate-limiters.rejecting.windows[1].period", "1d");
		String rate = Long.toString(Contenders.UNLIMITED_RATE);
		properties.put("resilience.rate-limiters.admitting.token-bucket.capacity", rate);
		properties.put("resilience.rate-limiters.admitting.token-bucket.refill-tokens", rate);
		properties.put("resilience.rate-limiters.admitting.token-bucket.refill-period", "1s");
		properties.put("spring.autoconfigure.exclude",
				AnnotatedCallBenchmark.autoConfigurations(AnnotatedCallBenchmark.RESILIENCE4J_PACKAGE));
		properties.put("resilience.rate-limit-stack-traces", Boolean.toString(this.impl.equals("stack_traces")));
		boolean rejected = !this.impl.equals("admitted");
		this.context = AnnotatedCallBenchmark.start(QuotaApplication.class, properties);
		this.quota = this.context.getBean(rejected ? "rejectingQuota" : "admittingQuota", Quota.class);
		if (!AopUtils.isAopProxy(this.quota)) {
			throw new IllegalStateException("The annotated bean is not proxied");
		}
		if (rejected) {
			drain();
		}
	}

	private void drain() {
		for (int i = 0; i <= 30; i++) {
			if (call() != null) {
				return;
			}
		}
		throw new IllegalStateException("The rejecting limiter still admits calls");
	}

	@TearDown
	public void tearDown() {
		this.context.close();
	}

	/**
	 * Makes one call and catches its rejection.
	 * @return the rejection, or {@code null} when the call was admitted
	 */
	@Benchmark
	public RateLimitExceededException call() {
		try {
			this.quota.charge(this.apiKey);
			return null;
		}
		catch (RateLimitExceededException ex) {
			return ex;
		}
	}

	/**
	 * The method under test, as the sample's {@code PartnerQuota} has it.
	 */
	public interface Quota {

		/**
		 * Charges one call to an API key.
		 * @param apiKey the caller's key
		 */
		void charge(String apiKey);

	}

	/**
	 * {@link Quota} under a limiter that rejects every call once drained.
	 */
	public static class RejectingQuota implements Quota {

		@Override
		@RateLimited(name = "rejecting", key = "#apiKey")
		public void charge(String apiKey) {
		}

	}

	/**
	 * {@link Quota} under a limiter that admits every call.
	 */
	public static class AdmittingQuota implements Quota {

		@Override
		@RateLimited(name = "admitting", key = "#apiKey")
		public void charge(String apiKey) {
		}

	}

	/**
	 * The application with our starter's auto-configuration.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	public static class QuotaApplication {

		@Bean
		RejectingQuota rejectingQuota() {
			return new RejectingQuota();
		}

		@Bean
		AdmittingQuota admittingQuota() {
			return new AdmittingQuota();
		}

	}

}
