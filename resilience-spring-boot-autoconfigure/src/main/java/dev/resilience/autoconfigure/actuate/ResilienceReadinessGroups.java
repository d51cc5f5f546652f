package dev.resilience.autoconfigure.actuate;

import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;

/**
 * The application's health groups, with the {@code resilience} contributor in the
 * {@code readiness} group while {@code redisLimiters} says a limiter decides in Redis: an instance
 * whose limiters cannot decide is not sent traffic. Every other group, and every other member of
 * the readiness group, is the application's own.
 */
final class ResilienceReadinessGroups implements HealthEndpointGroups, AdditionalPathsMapper {

	static final String READINESS = "readiness";

	static final String CONTRIBUTOR = "resilience";

	private final HealthEndpointGroups groups;

	private final BooleanSupplier redisLimiters;

	ResilienceReadinessGroups(HealthEndpointGroups groups, BooleanSupplier redisLimiters) {
		this.groups = groups;
		this.redisLimiters = redisLimiters;
	}

	@Override
	public HealthEndpointGroup getPrimary() {
		return this.groups.getPrimary();
	}

	@Override
	public Set<String> getNames() {
		return this.groups.getNames();
	}

	@Override
	public @Nullable HealthEndpointGroup get(String name) {
		HealthEndpointGroup group = this.groups.get(name);
		return (group != null && READINESS.equals(name)) ? new Readiness(group, this.redisLimiters) : group;
	}

	@Override
	public @Nullable List<String> getAdditionalPaths(EndpointId endpointId, WebServerNamespace webServerNamespace) {
		// Boot's groups map /readyz and /livez (add-additional-paths) through this interface
		return (this.groups instanceof AdditionalPathsMapper mapper)
				? mapper.getAdditionalPaths(endpointId, webServerNamespace) : null;
	}

	private record Readiness(HealthEndpointGroup group, BooleanSupplier redisLimiters) implements HealthEndpointGroup {

		@Override
		public boolean isMember(String name) {
			return this.group.isMember(name) || (CONTRIBUTOR.equals(name) && this.redisLimiters.getAsBoolean());
		}

		@Override
		public boolean showComponents(SecurityContext securityContext) {
			return this.group.showComponents(securityContext);
		}

		@Override
		public boolean showDetails(SecurityContext securityContext) {
			return this.group.showDetails(securityContext);
		}

		@Override
		public StatusAggregator getStatusAggregator() {
			return this.group.getStatusAggregator();
		}

		@Override
		public HttpCodeStatusMapper getHttpCodeStatusMapper() {
			return this.group.getHttpCodeStatusMapper();
		}

		@Override
		public @Nullable AdditionalHealthEndpointPath getAdditionalPath() {
			return this.group.getAdditionalPath();
		}

	}

}
