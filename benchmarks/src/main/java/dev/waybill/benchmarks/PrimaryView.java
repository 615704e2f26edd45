package dev.waybill.benchmarks;

import java.util.function.UnaryOperator;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;

/**
 * Registers a primary bean that is a view of the application's one bean of a type, once the
 * auto-configurations have registered theirs. Registered as a bean without an order, it runs
 * after the configuration classes were read, so no auto-configuration sees the view and backs
 * off from it; every bean created later that asks for the type gets the view.
 */
final class PrimaryView<T> implements BeanDefinitionRegistryPostProcessor {

	private final Class<T> type;

	private final UnaryOperator<T> view;

	PrimaryView(Class<T> type, UnaryOperator<T> view) {
		this.type = type;
		this.view = view;
	}

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
		ListableBeanFactory beans = (ListableBeanFactory) registry;
		String[] names = beans.getBeanNamesForType(this.type, true, false);
		if (names.length != 1) {
			throw new IllegalStateException("Expected one " + this.type.getName() + " bean to view, found "
					+ names.length);
		}
		String original = names[0];
		RootBeanDefinition definition = new RootBeanDefinition(this.type,
				() -> this.view.apply(this.type.cast(beans.getBean(original))));
		definition.setPrimary(true);
		// The original bean closes what it holds.
		definition.setDestroyMethodName("");
		registry.registerBeanDefinition(original + "View", definition);
	}

}
