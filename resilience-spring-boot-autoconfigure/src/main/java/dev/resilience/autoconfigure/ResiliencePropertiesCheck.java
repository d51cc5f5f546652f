package dev.resilience.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.Environment;

/**
 * Makes a {@code resilience.*} key that no capability binds a startup error, such as
 * {@code resilience.rate-limiters.x.tokne-bucket} or {@code resilience.rate-limiter.x}, naming
 * it.
 * <p>
 * Each capability binds its own keys in its own properties class, so no single binding sees them
 * all, and Boot's {@code ignoreUnknownFields = false} would reject the other capabilities' keys.
 * So before any {@code resilience} properties class is bound, every one registered is bound once
 * more, into fresh instances, under one {@link NoUnboundElementsBindHandler}: Boot's own check,
 * message and source filter, over the names all of them bind. The properties classes are found
 * by the bean names {@code @EnableConfigurationProperties} gives them, so that this package needs
 * none of the capabilities' packages.
 */
final class ResiliencePropertiesCheck implements ConfigurationPropertiesBindHandlerAdvisor {

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("resilience");

	private final ListableBeanFactory beanFactory;

	private final Environment environment;

	ResiliencePropertiesCheck(ListableBeanFactory beanFactory, Environment environment) {
		this.beanFactory = beanFactory;
		this.environment = environment;
	}

	@Override
	public BindHandler apply(BindHandler bindHandler) {
		return new AbstractBindHandler(bindHandler) {

			@Override
			public <T> @Nullable Bindable<T> onStart(ConfigurationPropertyName name, Bindable<T> target,
					BindContext context) {
				if (context.getDepth() == 0 && (ROOT.equals(name) || ROOT.isAncestorOf(name))) {
					check();
				}
				return super.onStart(name, target, context);
			}

		};
	}

	/**
	 * Binds every resilience properties class under one check; throws naming unbound keys. A value
	 * that does not bind ({@code max-wait: soon}) is left to its own class's binding, which names
	 * its own bean: thrown here, it would blame whichever bean happened to bind the first
	 * {@code resilience} class.
	 */
	private void check() {
		List<Owner> owners = owners();
		NoUnboundElementsBindHandler unbound = new NoUnboundElementsBindHandler(BindHandler.DEFAULT,
				new UnboundElementsSourceFilter());
		Binder binder = Binder.get(this.environment);
		for (int i = 0; i < owners.size(); i++) {
			boolean last = i == owners.size() - 1;
			Owner owner = owners.get(i);
			try {
				bindChecked(binder, owner, unbound, last);
			}
			catch (BindException ex) {
				if (!(ex.getCause() instanceof UnboundConfigurationPropertiesException)) {
					return;
				}
				throw ex;
			}
		}
	}

	private static void bindChecked(Binder binder, Owner owner, BindHandler unbound, boolean last) {
		binder.bind(owner.prefix(), Bindable.of(owner.type()), new AbstractBindHandler(unbound) {

			@Override
			public void onFinish(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
					@Nullable Object result) throws Exception {
				// The check runs when a root binding finishes: only the last one's, over all names.
				if (last || context.getDepth() > 0) {
					super.onFinish(name, target, context, result);
				}
			}

		});
	}

	/**
	 * The registered resilience properties classes, this package's last: its binding at
	 * {@code resilience} itself makes the check cover every key under it.
	 */
	private List<Owner> owners() {
		List<Owner> owners = new ArrayList<>();
		for (String beanName : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = beanName.startsWith("resilience") ? this.beanFactory.getType(beanName, false) : null;
			ConfigurationProperties annotation = (type != null && type != ResilienceProperties.class)
					? AnnotatedElementUtils.findMergedAnnotation(type, ConfigurationProperties.class) : null;
			if (annotation != null) {
				ConfigurationPropertyName prefix = ConfigurationPropertyName.of(annotation.prefix());
				if (ROOT.equals(prefix) || ROOT.isAncestorOf(prefix)) {
					owners.add(new Owner(prefix, type));
				}
			}
		}
		owners.add(new Owner(ROOT, ResilienceProperties.class));
		return owners;
	}

	private record Owner(ConfigurationPropertyName prefix, Class<?> type) {
	}

}
