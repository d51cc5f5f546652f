package dev.resilience.autoconfigure.web.client;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import dev.resilience.autoconfigure.ratelimit.RateLimiterProperties;
import dev.resilience.autoconfigure.support.PropertyErrors;
import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * Which limiter the requests to a host are under: {@code resilience.rate-limiters.<name>.http-client},
 * checked when the application starts and when a limiter's properties change at run time. The
 * interceptor and the exchange filter ask it at each request, so a change applies from the next
 * request; a change that is refused is never seen by one.
 */
public final class HttpClientRoutes {

	private static final String PREFIX = "resilience.rate-limiters.";

	/** A host name or IPv4 address, or (two colons at least) an IPv6 address without its brackets. */
	private static final Pattern HOST = Pattern.compile("[a-z0-9.-]+|[0-9a-f.]*:[0-9a-f.]*:[0-9a-f:.]*");

	private final SpelExpressionParser parser = new SpelExpressionParser(
			new SpelParserConfiguration(SpelCompilerMode.MIXED, HttpClientRoutes.class.getClassLoader()));

	private final RateLimiterRegistry registry;

	/** The limiters' routes by name: what a change replaces. */
	private volatile Map<String, LimiterRoute> byLimiter = Map.of();

	/** The same routes by host: what each request reads. */
	private volatile Map<String, HttpClientRoute> byHost = Map.of();

	private HttpClientRoutes(RateLimiterRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Makes the routes of the limiters' properties as the application starts.
	 * @param limiters the limiters' properties by name
	 * @param registry the limiters
	 * @return the routes
	 * @throws IllegalArgumentException naming the property: a host that is not a host name, a key
	 * expression that does not parse, a key without hosts, or a host under two limiters
	 */
	public static HttpClientRoutes of(Map<String, RateLimiterProperties> limiters, RateLimiterRegistry registry) {
		HttpClientRoutes routes = new HttpClientRoutes(registry);
		limiters.forEach((name, properties) -> routes.prepare(name, properties.getHttpClient()).run());
		return routes;
	}

	/**
	 * Returns the route of a request's host, case-insensitively.
	 * @param uri the request's URI
	 * @return the route, or {@code null} when no limiter lists the host
	 */
	public @Nullable HttpClientRoute route(URI uri) {
		String host = uri.getHost();
		return (host != null) ? this.byHost.get(normalize(host)) : null;
	}

	/**
	 * Returns a limiter's {@code http-client} settings in force now, as properties: what the
	 * endpoint shows, after any change at run time.
	 * @param name the limiter's name
	 * @return its hosts (normalized) and key expression; none when no host is under it
	 */
	public RateLimiterProperties.HttpClient settingsOf(String name) {
		RateLimiterProperties.HttpClient settings = new RateLimiterProperties.HttpClient();
		LimiterRoute route = this.byLimiter.get(name);
		if (route != null) {
			settings.setHosts(List.copyOf(route.hosts()));
			Expression key = route.route().key();
			settings.setKey((key != null) ? key.getExpressionString() : null);
		}
		return settings;
	}

	/**
	 * Checks one limiter's {@code http-client} properties as they would be after a change, against
	 * the other limiters' routes now, and gives what applies them; nothing changes until it runs.
	 * @param name the limiter's name
	 * @param properties its {@code http-client} properties
	 * @return applies the checked routes
	 * @throws IllegalArgumentException naming the property when the change cannot be made
	 */
	public synchronized Runnable prepare(String name, RateLimiterProperties.HttpClient properties) {
		String prefix = PREFIX + name + ".http-client.";
		String keyText = properties.getKey();
		List<String> hosts = properties.getHosts();
		if (hosts.isEmpty()) {
			if (keyText != null) {
				throw new IllegalArgumentException(PropertyErrors.property(prefix + "key", "is set, but "
						+ prefix + "hosts is empty: no request would use it; list the hosts or remove the key"));
			}
			return () -> replace(name, null);
		}
		Expression key = (keyText != null) ? parse(keyText, prefix + "key") : null;
		List<String> normalized = hosts.stream().map((host) -> checked(host, prefix + "hosts")).distinct().toList();
		Map<String, LimiterRoute> current = this.byLimiter;
		current.forEach((other, route) -> {
			if (!other.equals(name)) {
				normalized.stream().filter(route.hosts()::contains).findFirst().ifPresent((host) -> {
					throw new IllegalArgumentException(PropertyErrors.property(prefix + "hosts", "lists " + host
							+ ", which " + PREFIX + other + ".http-client.hosts lists too; a host's requests are "
							+ "under one limiter only"));
				});
			}
		});
		LimiterRoute route = new LimiterRoute(normalized,
				new HttpClientRoute(this.registry.get(name), key, prefix + "key"));
		return () -> replace(name, route);
	}

	private synchronized void replace(String name, @Nullable LimiterRoute route) {
		Map<String, LimiterRoute> limiters = new LinkedHashMap<>(this.byLimiter);
		if (route != null) {
			limiters.put(name, route);
		}
		else {
			limiters.remove(name);
		}
		Map<String, HttpClientRoute> hosts = new LinkedHashMap<>();
		limiters.values().forEach((each) -> each.hosts().forEach((host) -> hosts.put(host, each.route())));
		this.byLimiter = Map.copyOf(limiters);
		this.byHost = Map.copyOf(hosts);
	}

	private Expression parse(String expression, String property) {
		try {
			return this.parser.parseExpression(expression);
		}
		catch (ParseException ex) {
			throw new IllegalArgumentException(PropertyErrors.property(property,
					"'" + expression + "' does not parse: " + ex.getMessage()), ex);
		}
	}

	private static String checked(String host, String property) {
		String normalized = normalize(host.strip());
		if (!HOST.matcher(normalized).matches()) {
			throw new IllegalArgumentException(PropertyErrors.property(property, "must hold host names, such as "
					+ "api.example.com, without scheme, port or path, but held '" + host + "'"));
		}
		return normalized;
	}

	/**
	 * A host as the routes compare it: lower case, an IPv6 address without its brackets.
	 * @param host a host as written or as a URI gives it
	 * @return the host to compare
	 */
	static String normalize(String host) {
		String lower = host.toLowerCase(Locale.ROOT);
		return (lower.startsWith("[") && lower.endsWith("]")) ? lower.substring(1, lower.length() - 1) : lower;
	}

	/**
	 * One limiter's hosts and route.
	 *
	 * @param hosts the hosts, normalized
	 * @param route the route of their requests
	 */
	private record LimiterRoute(List<String> hosts, HttpClientRoute route) {
	}

}
