package dev.resilience.autoconfigure.support;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure an auto-proxy creator exists, so the resilience annotations work even where Spring
 * Boot's AOP auto-configuration is off ({@code spring.aop.auto=false}), as
 * {@code @EnableTransactionManagement} does for {@code @Transactional}. An existing, more
 * capable creator (such as the AspectJ one) is kept. Like Spring Boot, it proxies classes
 * unless {@code spring.aop.proxy-target-class=false}, so beans stay injectable by their class.
 */
public class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

	private boolean proxyTargetClass = true;

	@Override
	public void setEnvironment(Environment environment) {
		this.proxyTargetClass = environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true);
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		if (this.proxyTargetClass) {
			AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
		}
	}

}
