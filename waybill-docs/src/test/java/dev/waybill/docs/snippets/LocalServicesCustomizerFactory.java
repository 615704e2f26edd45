package dev.waybill.docs.snippets;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

import dev.waybill.docs.LocalServices;

/**
 * Points the {@code @SpringBootTest} classes the pages show at this build's PostgreSQL, each
 * context in a schema of its own, dropped when it closes, without a line in the page's test: what
 * a reader's own build would configure for their database. Registered in
 * {@code META-INF/spring.factories}.
 */
public final class LocalServicesCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> attributes) {
		return testClass.getPackageName().startsWith(getClass().getPackageName() + ".") ? new Customizer() : null;
	}

	private static final class Customizer implements ContextCustomizer {

		@Override
		public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration configuration) {
			String schema;
			try {
				schema = LocalServices.createSchema("docs_snippet");
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Cannot create the snippet test's schema", ex);
			}
			context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("local services", Map.of(
					"spring.datasource.url", LocalServices.DATABASE + "?currentSchema=" + schema, "waybill.schema", schema,
					"spring.autoconfigure.exclude", String.join(",", LocalServices.NOT_IN_A_PAGES_BUILD))));
			context.addApplicationListener((ApplicationListener<ContextClosedEvent>) (event) -> {
				try {
					LocalServices.dropSchema(schema);
				}
				catch (SQLException ex) {
					throw new IllegalStateException("Cannot drop the snippet test's schema " + schema, ex);
				}
			});
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof Customizer;
		}

		@Override
		public int hashCode() {
			return Customizer.class.hashCode();
		}

	}

}
