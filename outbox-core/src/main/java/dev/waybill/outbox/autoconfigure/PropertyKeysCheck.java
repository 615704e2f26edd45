package dev.waybill.outbox.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

import dev.waybill.outbox.autoconfigure.RemovedWaybillPropertyException.SetRemovedProperty;
import dev.waybill.outbox.autoconfigure.UnknownWaybillPropertyException.UnknownProperty;

/**
 * Fails start-up, before any bean is created, when a removed {@code waybill.*} key is set
 * (naming its replacement) or a key no Waybill properties class binds (naming the closest known
 * one). The classes are those bound in this context and those the configuration metadata on the
 * class path names, so the keys of a module inactive on this host are checked too.
 *
 * @since 0.1
 */
final class PropertyKeysCheck implements BeanFactoryPostProcessor, EnvironmentAware, Ordered {

	private @Nullable Environment environment;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		if (!(this.environment instanceof ConfigurableEnvironment)) {
			return; // no property sources to check
		}
		ClassLoader classLoader = beanFactory.getBeanClassLoader();
		WaybillMetadata metadata = WaybillMetadata.read(classLoader);
		Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(this.environment);
		List<SetRemovedProperty> removed = RemovedPropertiesCheck.find(sources, metadata.removed());
		if (!removed.isEmpty()) {
			throw new RemovedWaybillPropertyException(removed);
		}
		UnknownPropertiesCheck check = new UnknownPropertiesCheck(sources, metadata.properties());
		propertiesClasses(beanFactory, metadata, classLoader).forEach((type, prefix) -> check.bind(prefix, type));
		List<UnknownProperty> unknown = check.unknown();
		if (!unknown.isEmpty()) {
			throw new UnknownWaybillPropertyException(unknown);
		}
	}

	/** Every {@code @ConfigurationProperties} class under {@code waybill}, with its prefix. */
	private static Map<Class<?>, ConfigurationPropertyName> propertiesClasses(ConfigurableListableBeanFactory beanFactory,
			WaybillMetadata metadata, @Nullable ClassLoader classLoader) {
		Map<Class<?>, ConfigurationPropertyName> classes = new LinkedHashMap<>();
		for (String bean : beanFactory.getBeanDefinitionNames()) {
			Class<?> type = beanFactory.getType(bean, false);
			if (type != null) {
				addIfWaybill(classes, ClassUtils.getUserClass(type));
			}
		}
		for (String name : metadata.propertiesClasses()) {
			if (ClassUtils.isPresent(name, classLoader)) {
				addIfWaybill(classes, ClassUtils.resolveClassName(name, classLoader));
			}
		}
		return classes;
	}

	private static void addIfWaybill(Map<Class<?>, ConfigurationPropertyName> classes, Class<?> type) {
		var annotation = MergedAnnotations.from(type).get(ConfigurationProperties.class);
		if (!annotation.isPresent()) {
			return;
		}
		String prefix = annotation.getString("prefix").isEmpty() ? annotation.getString("value")
				: annotation.getString("prefix");
		if (ConfigurationPropertyName.isValid(prefix)) {
			ConfigurationPropertyName name = ConfigurationPropertyName.of(prefix);
			if (WaybillMetadata.ROOT.equals(name) || WaybillMetadata.ROOT.isAncestorOf(name)) {
				classes.putIfAbsent(type, name);
			}
		}
	}

}
