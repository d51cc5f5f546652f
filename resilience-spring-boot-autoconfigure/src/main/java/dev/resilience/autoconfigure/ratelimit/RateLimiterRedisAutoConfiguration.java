package dev.resilience.autoconfigure.ratelimit;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.resilience.autoconfigure.ResilienceProperties;
import dev.resilience.ratelimit.redis.RedisRateLimitStore;
import dev.resilience.ratelimit.redis.RedisScriptRunner;

/**
 * Auto-configuration of the Redis store of rate limiters ({@code store: redis}), on the
 * {@link LettuceConnectionFactory} that Spring Boot configures from {@code spring.data.redis.*}.
 * Nothing here connects at startup: the connection opens in the background once the context has
 * started, and only when a limiter uses the Redis store.
 */
@AutoConfiguration(before = RateLimiterAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ LettuceConnectionFactory.class, RedisClusterAsyncCommands.class })
@ConditionalOnBean(LettuceConnectionFactory.class)
public final class RateLimiterRedisAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisScriptRunner resilienceRedisScriptRunner(ObjectProvider<LettuceConnectionFactory> connectionFactory) {
		// Lettuce's shared connection, which reconnects by itself; the standalone and the cluster
		// connection both answer the commands the store uses.
		return new RedisScriptRunner(
				() -> ((LettuceConnection) connectionFactory.getObject().getConnection()).getNativeConnection());
	}

	@Bean
	@ConditionalOnMissingBean(name = "resilienceRedisRateLimitStore")
	RateLimitStoreRegistration resilienceRedisRateLimitStore(RedisScriptRunner runner, ResilienceProperties properties) {
		ResilienceProperties.Redis redis = properties.getRedis();
		return new RateLimitStoreRegistration(RedisRateLimitStore.TYPE, (name, settings,
				ticker) -> new RedisRateLimitStore(name, settings, runner, redis.getKeyPrefix(), redis.getDecisionTimeout()));
	}

	@Bean
	@ConditionalOnMissingBean(name = "resilienceRedisConnectionWarmer")
	static SmartInitializingSingleton resilienceRedisConnectionWarmer(ObjectProvider<RedisScriptRunner> runner,
			ObjectProvider<ResilienceProperties> properties) {
		// Opens the connection early, without waiting for it, so that the first decisions do not
		// pay for it: only when some limiter uses Redis.
		return () -> {
			boolean used = properties.getObject()
				.getRateLimiters()
				.values()
				.stream()
				.anyMatch((limiter) -> limiter.getStore() == RateLimiterProperties.Store.REDIS);
			if (used) {
				runner.getObject().connectInBackground();
			}
		};
	}

}
