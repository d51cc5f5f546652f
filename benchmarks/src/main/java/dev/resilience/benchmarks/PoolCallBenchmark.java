package dev.resilience.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.resilience4j.bulkhead.ThreadPoolBulkhead;
import io.github.resilience4j.bulkhead.ThreadPoolBulkheadConfig;
import io.github.resilience4j.timelimiter.TimeLimiter;
import io.github.resilience4j.timelimiter.TimeLimiterConfig;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
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

import dev.resilience.pool.ConnectionFactory;
import dev.resilience.pool.WithConnection;

/**
 * The overhead of a call with a pooled connection and a deadline, for work that does nothing: our
 * {@code @WithConnection} on a Spring bean (checkout, hand-off to a worker thread with the
 * caller's context, wait, return), a bare Commons Pool 2 borrow and return on the caller's thread
 * (no deadline on the work: the floor of pooling alone), and Resilience4j's
 * {@code ThreadPoolBulkhead} with a {@code TimeLimiter} (hand-off to a bounded thread pool and a
 * timed wait, its way of putting a deadline on work).
 * <pre class="code">
 * benchmarks/run.sh PoolCallBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Threads(1)
public class PoolCallBenchmark {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	@Param({ "ours", "commons_pool2", "resilience4j" })
	String impl;

	private ConfigurableApplicationContext context;

	private AnnotatedCallBenchmark.Echo echo;

	private GenericObjectPool<Object> commonsPool;

	private ThreadPoolBulkhead bulkhead;

	private TimeLimiter timeLimiter;

	// A field, not a constant, so that the JIT cannot fold the call away.
	private String argument = "hello";

	@Setup
	public void setup() throws Exception {
		switch (this.impl) {
			case "ours" -> {
				Map<String, String> properties = AnnotatedCallBenchmark.quietApplication();
				properties.put("resilience.pools.bench.factory", "benchConnections");
				properties.put("resilience.pools.bench.max-size", "4");
				properties.put("spring.autoconfigure.exclude",
						AnnotatedCallBenchmark.autoConfigurations("io.github.resilience4j."));
				this.context = AnnotatedCallBenchmark.start(OursApplication.class, properties);
				this.echo = this.context.getBean(PooledEcho.class);
				if (!AopUtils.isAopProxy(this.echo)) {
					throw new IllegalStateException("The @WithConnection bean is not proxied");
				}
			}
			case "commons_pool2" -> {
				GenericObjectPoolConfig<Object> config = new GenericObjectPoolConfig<>();
				config.setMaxTotal(4);
				config.setJmxEnabled(false);
				this.commonsPool = new GenericObjectPool<>(new BasePooledObjectFactory<>() {

					@Override
					public Object create() {
						return new Object();
					}

					@Override
					public PooledObject<Object> wrap(Object connection) {
						return new DefaultPooledObject<>(connection);
					}

				}, config);
			}
			case "resilience4j" -> {
				this.bulkhead = ThreadPoolBulkhead.of("bench",
						ThreadPoolBulkheadConfig.custom().maxThreadPoolSize(4).coreThreadPoolSize(4).build());
				this.timeLimiter = TimeLimiter.of(TimeLimiterConfig.custom().timeoutDuration(DEADLINE).build());
			}
			default -> throw new IllegalArgumentException("Unknown implementation '" + this.impl + "'");
		}
	}

	@TearDown
	public void tearDown() throws Exception {
		if (this.context != null) {
			this.context.close();
		}
		if (this.commonsPool != null) {
			this.commonsPool.close();
		}
		if (this.bulkhead != null) {
			this.bulkhead.close();
		}
	}

	@Benchmark
	public String call() throws Exception {
		return switch (this.impl) {
			case "ours" -> this.echo.echo(this.argument);
			case "commons_pool2" -> {
				Object connection = this.commonsPool.borrowObject(DEADLINE);
				try {
					yield this.argument;
				}
				finally {
					this.commonsPool.returnObject(connection);
				}
			}
			default -> this.timeLimiter.executeFutureSupplier(
					() -> this.bulkhead.executeSupplier(() -> this.argument).toCompletableFuture());
		};
	}

	/**
	 * {@link AnnotatedCallBenchmark.Echo} with a connection of the pool {@code bench}.
	 */
	public static class PooledEcho implements AnnotatedCallBenchmark.Echo {

		@Override
		@WithConnection(pool = "bench", timeout = "30s")
		public String echo(String value) {
			return value;
		}

	}

	/**
	 * The application with our starter's auto-configuration and one pool.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	public static class OursApplication {

		@Bean
		PooledEcho pooledEcho() {
			return new PooledEcho();
		}

		@Bean
		ConnectionFactory<Object> benchConnections() {
			return Object::new;
		}

	}

}
