package dev.waybill.outbox.autoconfigure;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.waybill.outbox.autoconfigure.UnknownWaybillPropertyException.UnknownProperty;

/**
 * Fails start-up, before any bean is created, when the environment holds a {@code waybill.*} key
 * that no Waybill property binds ({@link WaybillPropertyNames}), or a value set on a group of
 * properties ({@code waybill.retention.pacing: false}), which nothing would bind either. Keys from environment variables
 * and JVM system properties are only logged: those namespaces are shared with other software (as
 * Spring Boot's own unknown-field check treats them).
 */
final class UnknownPropertiesCheck implements BeanFactoryPostProcessor, EnvironmentAware, Ordered {

	private static final Log logger = LogFactory.getLog(UnknownPropertiesCheck.class);

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
			return; // no property sources to walk
		}
		WaybillPropertyNames names = new WaybillPropertyNames();
		names.addMetadata(beanFactory.getBeanClassLoader());
		for (String bean : beanFactory.getBeanDefinitionNames()) {
			ConfigurationProperties annotation = beanFactory.findAnnotationOnBean(bean, ConfigurationProperties.class,
					false);
			String prefix = (annotation != null) ? (annotation.prefix().isEmpty() ? annotation.value() : annotation.prefix())
					: null;
			if (prefix == null || !ConfigurationPropertyName.isValid(prefix)) {
				continue;
			}
			ConfigurationPropertyName name = ConfigurationPropertyName.of(prefix);
			Class<?> type = beanFactory.getType(bean, false);
			if (type != null && (WaybillPropertyNames.ROOT.equals(name) || WaybillPropertyNames.ROOT.isAncestorOf(name))) {
				names.addClass(name, type);
			}
		}
		check(names);
	}

	/**
	 * Whether a group name carries a value of its own: an empty one ({@code pacing:} or
	 * {@code pacing: {}} in YAML, {@code pacing=} in a properties file) sets nothing and is fine.
	 */
	private static boolean hasValue(ConfigurationPropertySource source, ConfigurationPropertyName name) {
		ConfigurationProperty property = source.getConfigurationProperty(name);
		Object value = (property != null) ? property.getValue() : null;
		return !(value == null || (value instanceof CharSequence text && text.toString().isBlank())
				|| (value instanceof Map<?, ?> map && map.isEmpty())
				|| (value instanceof Collection<?> collection && collection.isEmpty()));
	}

	/**
	 * The closest known property; for a value set on a group ({@code relay: false}) its
	 * {@code enabled} property when it has one, the likely intent.
	 */
	private static @Nullable String suggestion(WaybillPropertyNames names, ConfigurationPropertyName name) {
		if (names.isKnown(name) && names.isGroup(name)) {
			ConfigurationPropertyName enabled = name.append("enabled");
			if (names.isKnown(enabled) && !names.isGroup(enabled)) {
				return enabled.toString();
			}
		}
		return names.closest(name);
	}

	private void check(WaybillPropertyNames names) {
		List<UnknownProperty> fatal = new ArrayList<>();
		List<UnknownProperty> logged = new ArrayList<>();
		UnboundElementsSourceFilter configuredByTheApplication = new UnboundElementsSourceFilter();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)) {
				continue;
			}
			iterable.filter(WaybillPropertyNames.ROOT::isAncestorOf)
				.stream()
				.filter((name) -> !names.isKnown(name) || (names.isGroup(name) && hasValue(source, name)))
				.forEach((name) -> {
					ConfigurationProperty property = source.getConfigurationProperty(name);
					Origin from = (property != null) ? property.getOrigin() : null;
					if (source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource
							&& from instanceof PropertySourceOrigin variable
							&& (names.isKnownLegacyVariable(variable.getPropertyName())
									|| WaybillPropertyNames.isBuildVariable(variable.getPropertyName()))) {
						return;
					}
					String origin = (from != null) ? from.toString() : null;
					UnknownProperty unknown = new UnknownProperty(name.toString(), origin, suggestion(names, name));
					(configuredByTheApplication.apply(source) ? fatal : logged).add(unknown);
				});
		}
		logged.forEach((unknown) -> logger.warn("Unknown Waybill configuration property " + unknown.where()
				+ unknown.suggestion() + " (only logged: environment variables and system properties are shared "
				+ "with other software)"));
		if (fatal.isEmpty()) {
			return;
		}
		boolean fail = Binder.get(this.environment)
			.bind(WaybillProperties.FAIL_ON_UNKNOWN_PROPERTIES_PROPERTY, Boolean.class)
			.orElse(true);
		if (fail) {
			throw new UnknownWaybillPropertyException(fatal);
		}
		fatal.forEach((unknown) -> logger.warn("Unknown Waybill configuration property " + unknown.where()
				+ unknown.suggestion() + " (ignored: " + WaybillProperties.FAIL_ON_UNKNOWN_PROPERTIES_PROPERTY
				+ " is false)"));
	}

}
