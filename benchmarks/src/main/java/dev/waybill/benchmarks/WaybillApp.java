package dev.waybill.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.Lifecycle;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration;
import dev.waybill.outbox.autoconfigure.WaybillRelayAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.retention.autoconfigure.WaybillRetentionAutoConfiguration;
import dev.waybill.retention.autoconfigure.WaybillRetentionProperties;

/**
 * Waybill as an application gets it: a Spring Boot application context without a web server,
 * with Waybill's auto-configurations on one benchmark schema (its {@link DataSource}, a bean of the
 * application) and the default {@code waybill.*} values, unless a benchmark sets one. So the
 * benchmarks measure what the auto-configuration builds; they take public beans from it and
 * pause and resume its lifecycles (the relay, the receive endpoint) around their timed windows.
 */
final class WaybillApp implements AutoCloseable {

	static {
		// The benchmarks' own logging configuration stays: Boot would replace it with its defaults.
		System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
	}

	private final ConfigurableApplicationContext context;

	private WaybillApp(ConfigurableApplicationContext context) {
		this.context = context;
	}

	/**
	 * Starts describing an application on a schema with Waybill's tables.
	 * @param schema the schema, whose pool becomes the application's DataSource unless
	 * {@link Builder#dataSource} sets another
	 * @return the builder
	 */
	static Builder on(TestSchema schema) {
		return new Builder(schema);
	}

	/**
	 * Returns the application's one bean of a type.
	 * @param type the type
	 * @return the bean
	 */
	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	/**
	 * Returns the application's beans, for the test fixtures that read them.
	 * @return the application context
	 */
	org.springframework.beans.factory.BeanFactory beans() {
		return this.context;
	}

	OutboxPublisher publisher() {
		return bean(OutboxPublisher.class);
	}

	TransactionTemplate transactions() {
		return new TransactionTemplate(bean(PlatformTransactionManager.class));
	}

	/**
	 * Returns the relay's lifecycle: stopped, it relays nothing; started again, it resumes.
	 * @return the relay bean
	 */
	Lifecycle relay() {
		return this.context.getBean(WaybillRelayAutoConfiguration.RELAY_BEAN_NAME, Lifecycle.class);
	}

	boolean hasRelay() {
		return this.context.containsBean(WaybillRelayAutoConfiguration.RELAY_BEAN_NAME);
	}

	/**
	 * Returns the receive endpoint's lifecycle, which consumes every registered queue: stopped, it
	 * consumes nothing; started again, it resumes.
	 * @return the receive endpoint bean
	 */
	Lifecycle receiveEndpoint() {
		return this.context.getBean(WaybillRabbitInboxAutoConfiguration.RECEIVE_ENDPOINT_BEAN_NAME, Lifecycle.class);
	}

	boolean hasReceiveEndpoint() {
		return this.context.containsBean(WaybillRabbitInboxAutoConfiguration.RECEIVE_ENDPOINT_BEAN_NAME);
	}

	@Override
	public void close() {
		this.context.close();
	}

	@Override
	public String toString() {
		return "Waybill application " + this.context.getId();
	}

	/**
	 * What a benchmark's application consists of.
	 */
	static final class Builder {

		private final TestSchema schema;

		private final Map<String, Object> properties = new LinkedHashMap<>();

		private final BeanRegistrations beans = new BeanRegistrations();

		private final List<Class<?>> sources = new ArrayList<>(List.of(Waybill.class));

		private DataSource dataSource;

		private Builder(TestSchema schema) {
			this.schema = schema;
			property("waybill.schema", schema.name());
			// The schema comes with Waybill's tables, applied by the same changelog.
			property(WaybillAutoConfiguration.LIQUIBASE_ENABLED_PROPERTY, false);
			// Only the retention benchmark purges: a scheduled run elsewhere would be load of its own.
			property(WaybillRetentionProperties.ENABLED_PROPERTY, false);
			// -Dwaybill.bench.direct-dispatch=false: every relay claims every scope, for a comparison.
			if ("false".equals(System.getProperty("waybill.bench.direct-dispatch"))) {
				property("waybill.outbox.relay.direct-dispatch", false);
			}
			this.dataSource = schema.dataSource();
		}

		/**
		 * Makes another pool the application's DataSource instead of the schema's, e.g. one through
		 * a connection pooler; the caller closes it.
		 * @param dataSource connections to the schema's database
		 * @return this builder
		 */
		Builder dataSource(DataSource dataSource) {
			this.dataSource = dataSource;
			return this;
		}

		/**
		 * Sets a property, as {@code application.properties} would.
		 * @return this builder
		 */
		Builder property(String name, Object value) {
			this.properties.put(name, value);
			return this;
		}

		/**
		 * Adds RabbitMQ, through {@code spring.rabbitmq.*}: the relay's transport and the inbox's
		 * receive endpoint.
		 * @param rabbit the broker
		 * @return this builder
		 */
		Builder rabbit(TestRabbit rabbit) {
			this.sources.add(Rabbit.class);
			return property("spring.rabbitmq.host", rabbit.host()).property("spring.rabbitmq.port", rabbit.port())
				.property("spring.rabbitmq.username", rabbit.username())
				.property("spring.rabbitmq.password", rabbit.password())
				.property("spring.rabbitmq.virtual-host", rabbit.virtualHost());
		}

		/**
		 * Adds an application bean.
		 * @return this builder
		 */
		<T> Builder bean(Class<T> type, Supplier<T> bean) {
			this.beans.add((context) -> context.registerBean(type, bean));
			return this;
		}

		/**
		 * Puts a view in front of the application's one bean of a type, e.g. to time its calls:
		 * every bean that asks for the type gets {@code view} of the bean the auto-configuration
		 * made, which backs off from no bean of the application.
		 * @param type the bean's type
		 * @param view wraps the bean
		 * @return this builder
		 */
		<T> Builder view(Class<T> type, UnaryOperator<T> view) {
			this.beans.add((context) -> context.registerBean(type.getName() + ".view", PrimaryView.class,
					() -> new PrimaryView<>(type, view)));
			return this;
		}

		/**
		 * Starts the application; its lifecycles (the relay, the receive endpoint) start with it.
		 * @return the running application
		 */
		WaybillApp start() {
			DataSource pool = this.dataSource;
			// Closed by its owner (the schema, or whoever passed it) and not with the application.
			this.beans.add((context) -> context.registerBean(DataSource.class, () -> pool,
					(definition) -> definition.setDestroyMethodName("")));
			return new WaybillApp(new SpringApplicationBuilder(this.sources.toArray(Class<?>[]::new))
				.web(WebApplicationType.NONE)
				.bannerMode(Banner.Mode.OFF)
				.logStartupInfo(false)
				.properties(this.properties)
				.initializers(this.beans)
				.run());
		}

	}

	/** The application's own beans, registered before the auto-configurations look for them. */
	private static final class BeanRegistrations implements ApplicationContextInitializer<GenericApplicationContext> {

		private final List<Consumer<GenericApplicationContext>> registrations = new ArrayList<>();

		void add(Consumer<GenericApplicationContext> registration) {
			this.registrations.add(registration);
		}

		@Override
		public void initialize(GenericApplicationContext context) {
			this.registrations.forEach((registration) -> registration.accept(context));
		}

	}

	/** Waybill's auto-configurations on the application's DataSource. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataSourceTransactionManagerAutoConfiguration.class, WaybillAutoConfiguration.class,
			WaybillRelayAutoConfiguration.class, WaybillInboxAutoConfiguration.class,
			WaybillRetentionAutoConfiguration.class })
	static class Waybill {

	}

	/** Waybill's RabbitMQ auto-configurations: the relay's transport and the inbox's endpoint. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ WaybillRabbitAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class })
	static class Rabbit {

	}

}
