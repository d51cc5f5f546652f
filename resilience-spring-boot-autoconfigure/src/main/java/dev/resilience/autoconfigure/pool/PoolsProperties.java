package dev.resilience.autoconfigure.pool;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The properties of {@code resilience.pools}.
 */
@ConfigurationProperties(prefix = "resilience")
public class PoolsProperties {

	/**
	 * Connection pools by name, as used by @WithConnection(pool) and injected as the
	 * ConnectionPool bean of the same name. Each takes max-size, min-idle, timeout,
	 * validate-on-checkout, max-idle-time and factory (the name of a ConnectionFactory bean; none
	 * makes a permit pool that only bounds concurrent calls).
	 */
	private final Map<String, ConnectionPoolProperties> pools = new LinkedHashMap<>();

	public Map<String, ConnectionPoolProperties> getPools() {
		return this.pools;
	}

}
