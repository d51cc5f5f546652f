package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.resilience.Ticker;
import dev.resilience.autoconfigure.support.ContinuationScheduler;
import dev.resilience.internal.DurationText;
import dev.resilience.ratelimit.StoreFailureListener;
import dev.resilience.ratelimit.redis.RedisRateLimitStore;
import dev.resilience.ratelimit.redis.RedisScriptRunner;

/**
 * Auto-configuration of the Redis store of rate limiters ({@code store: redis}), on the
 * {@link LettuceConnectionFactory} that Spring Boot configures from {@code spring.data.redis.*}.
 * The connection is opened while the context starts, and startup waits for it up to
 * {@code resilience.redis.connect-timeout}, only when a limiter uses the Redis store: without one,
 * Redis is never contacted. Each store tells every {@link StoreFailureListener} bean of its failures.
 * <p>
 * The condition is on any {@link RedisConnectionFactory}, not on {@link LettuceConnectionFactory}:
 * an application's own factory is often declared as the interface, and a bean's declared type is
 * all a condition sees. A limiter with {@code store: redis} on a factory other than Lettuce's is a
 * startup error naming the limiter.
 */
@AutoConfiguration(before = RateLimiterAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ LettuceConnectionFactory.class, RedisClusterAsyncCommands.class })
@ConditionalOnBean(RedisConnectionFactory.class)
public final class RateLimiterRedisAutoConfiguration {

	private static final System.Logger logger = System.getLogger(RateLimiterRedisAutoConfiguration.class.getName());

	@Bean
	@ConditionalOnMissingBean
	RedisScriptRunner resilienceRedisScriptRunner(ObjectProvider<RedisConnectionFactory> connectionFactory,
			RateLimitingProperties properties,
			@Qualifier(ContinuationScheduler.BEAN_NAME) ScheduledExecutorService scheduler) {
		// Lettuce's shared connection, which reconnects by itself; the standalone and the cluster
		// connection both answer the commands the store uses. Timeouts, and the continuations of
		// asynchronous decisions, run on the starter's scheduler.
		return new RedisScriptRunner(
				() -> ((LettuceConnection) connectionFactory.getObject().getConnection()).getNativeConnection(),
				properties.getRedis().getConnectTimeout(), scheduler, Ticker.system());
	}

	@Bean
	@ConditionalOnMissingBean(name = "resilienceRedisRateLimitStore")
	RateLimitStoreRegistration resilienceRedisRateLimitStore(RedisScriptRunner runner, RateLimitingProperties properties,
			ObjectProvider<StoreFailureListener> listeners, ObjectProvider<RedisConnectionFactory> connectionFactory,
			ListableBeanFactory beanFactory) {
		RateLimitingProperties.Redis redis = properties.getRedis();
		return new RateLimitStoreRegistration(RedisRateLimitStore.TYPE, (name, settings, ticker) -> {
			RedisConnectionFactory factory = connectionFactory.getIfUnique();
			if (factory == null) {
				// Several, none primary: the connection would fail on every decision, which would
				// silently follow on-store-failure.
				throw new IllegalStateException("resilience.rate-limiters." + name + ".store is redis, but the "
						+ "application has several RedisConnectionFactory beans and none is primary: "
						+ Arrays.toString(beanFactory.getBeanNamesForType(RedisConnectionFactory.class))
						+ "; mark the one the rate limiters use @Primary");
			}
			if (!(factory instanceof LettuceConnectionFactory)) {
				throw new IllegalStateException("resilience.rate-limiters." + name + ".store is redis, which needs "
						+ "Spring Data Redis with Lettuce (spring-boot-starter-data-redis) and its "
						+ "LettuceConnectionFactory; the application's RedisConnectionFactory is a "
						+ factory.getClass().getName());
			}
			return new RedisRateLimitStore(name, settings, runner, redis.getKeyPrefix(), redis.getDecisionTimeout(),
					listeners.orderedStream().toList(), ticker);
		});
	}

	@Bean
	@ConditionalOnMissingBean(name = "resilienceRedisConnectionWarmer")
	static SmartInitializingSingleton resilienceRedisConnectionWarmer(ObjectProvider<RedisScriptRunner> runner,
			ObjectProvider<RateLimitingProperties> properties) {
		// Opens the connection once every singleton exists and waits for it, so that the first
		// decisions are Redis's: only when some limiter uses Redis.
		return () -> warm(runner, properties);
	}

	/**
	 * Follows the context's {@code stop()} and {@code start()} (a restart, a CRaC checkpoint): stopping
	 * the context closes Spring Data Redis's connection for good, which Lettuce does not reopen, so
	 * when the context starts again, after the connection factory (phase 0), the runner forgets it
	 * and opens a new one. Until then, and after the context closed, decisions find the connection
	 * closed and follow {@code on-store-failure} at once.
	 */
	@Bean
	@ConditionalOnMissingBean(name = "resilienceRedisConnectionLifecycle")
	static SmartLifecycle resilienceRedisConnectionLifecycle(ObjectProvider<RedisScriptRunner> runner,
			ObjectProvider<RateLimitingProperties> properties) {
		return new SmartLifecycle() {

			private volatile boolean running;

			private volatile boolean stopped;

			@Override
			public void start() {
				if (this.stopped) {
					runner.getObject().disconnect();
					warm(runner, properties);
				}
				this.running = true;
			}

			@Override
			public void stop() {
				this.running = false;
				this.stopped = true;
			}

			@Override
			public boolean isRunning() {
				return this.running;
			}

			@Override
			public int getPhase() {
				return 1;
			}

		};
	}

	private static void warm(ObjectProvider<RedisScriptRunner> runner, ObjectProvider<RateLimitingProperties> properties) {
		RateLimitingProperties resilience = properties.getObject();
		// never negative: the properties refuse that when bound
		Duration timeout = resilience.getRedis().getConnectTimeout();
		boolean used = resilience.getRateLimiters()
			.values()
			.stream()
			.anyMatch((limiter) -> limiter.getStore() == RateLimiterProperties.Store.REDIS);
		if (used && timeout.isZero()) {
			// what connect-timeout: 0 asks for: no wait, so nothing to warn of
			runner.getObject().connectInBackground();
		}
		else if (used && !runner.getObject().connect(timeout)) {
			logger.log(System.Logger.Level.WARNING, "Redis did not answer within resilience.redis.connect-timeout ("
					+ DurationText.of(timeout)
					+ "): rate limiters with store: redis follow their on-store-failure until it does");
		}
	}

}
