package dev.resilience.autoconfigure.refresh;

import java.util.List;

import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;

/**
 * Applies a change of {@code resilience.*} properties when Spring Cloud publishes an
 * {@link EnvironmentChangeEvent} (after {@code /actuator/refresh}, or a change pushed by Spring
 * Cloud Config or Kubernetes). A change that is wrong is logged with the message startup would
 * give, and the old settings stay.
 */
class ResilienceEnvironmentChangeListener implements ApplicationListener<EnvironmentChangeEvent> {

	private static final System.Logger logger = System.getLogger(ResilienceEnvironmentChangeListener.class.getName());

	private final ResilienceSettingsUpdater updater;

	ResilienceEnvironmentChangeListener(ResilienceSettingsUpdater updater) {
		this.updater = updater;
	}

	@Override
	public void onApplicationEvent(EnvironmentChangeEvent event) {
		if (event.getKeys().stream().noneMatch((key) -> key.startsWith("resilience."))) {
			return;
		}
		List<String> refused = this.updater.refresh(event.getKeys());
		refused.forEach((message) -> logger.log(System.Logger.Level.ERROR,
				"Changed resilience properties refused, the old settings stay: " + message));
	}

}
