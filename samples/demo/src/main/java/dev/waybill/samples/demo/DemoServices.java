package dev.waybill.samples.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.slf4j.bridge.SLF4JBridgeHandler;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.OutboxStats;

import dev.waybill.samples.billing.BillingServiceApplication;
import dev.waybill.samples.orders.OrderServiceApplication;

/**
 * The two services, each in a Spring context of its own built from its own configuration
 * ({@code order-service.yml}, {@code billing-service.yml}) plus the {@code demo} profile
 * ({@code *-demo.yml}: short retention, quick retries, any free HTTP port), with a
 * {@link ServiceMonitor} in each.
 */
final class DemoServices implements AutoCloseable {

	private static final String LOGGING_SYSTEM_PROPERTY = "org.springframework.boot.logging.LoggingSystem";

	private final ConfigurableApplicationContext billing;

	private final ConfigurableApplicationContext orders;

	private final ServiceMonitor billingMonitor;

	private final ServiceMonitor orderMonitor;

	private DemoServices(ConfigurableApplicationContext billing, ServiceMonitor billingMonitor,
			ConfigurableApplicationContext orders, ServiceMonitor orderMonitor) {
		this.billing = billing;
		this.billingMonitor = billingMonitor;
		this.orders = orders;
		this.orderMonitor = orderMonitor;
	}

	/**
	 * Starts both services side by side and returns once both run. The order service's relay retries
	 * an OrderPlaced published before billing's queue is bound, so the order does not matter; the
	 * demo places its first order after both started.
	 * @param arguments {@code --name=value} arguments for both
	 * @return the running services
	 */
	static DemoServices start(List<String> arguments) {
		logOnce();
		ServiceMonitor billingMonitor = new ServiceMonitor();
		ServiceMonitor orderMonitor = new ServiceMonitor();
		CompletableFuture<ConfigurableApplicationContext> billing = CompletableFuture
			.supplyAsync(() -> run(BillingServiceApplication.application(), billingMonitor, arguments));
		CompletableFuture<ConfigurableApplicationContext> orders = CompletableFuture
			.supplyAsync(() -> run(OrderServiceApplication.application(), orderMonitor, arguments));
		try {
			CompletableFuture.allOf(billing, orders).join();
			return new DemoServices(billing.join(), billingMonitor, orders.join(), orderMonitor);
		}
		catch (CompletionException ex) {
			billing.thenAccept(ConfigurableApplicationContext::close);
			orders.thenAccept(ConfigurableApplicationContext::close);
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

	/**
	 * Lets logback.xml set logging up, once: applications that start in one JVM would each set it up,
	 * concurrently.
	 */
	static void logOnce() {
		if (System.getProperty(LOGGING_SYSTEM_PROPERTY) == null) {
			System.setProperty(LOGGING_SYSTEM_PROPERTY, "none");
			if (!SLF4JBridgeHandler.isInstalled()) { // Tomcat and Liquibase log through java.util.logging
				SLF4JBridgeHandler.removeHandlersForRootLogger();
				SLF4JBridgeHandler.install();
			}
		}
	}

	private static ConfigurableApplicationContext run(SpringApplication application, ServiceMonitor monitor,
			List<String> arguments) {
		application.addInitializers((context) -> context.getBeanFactory().registerSingleton("demoMonitor", monitor));
		List<String> args = new ArrayList<>();
		args.add("--spring.profiles.active=demo");
		args.addAll(arguments);
		return application.run(args.toArray(String[]::new));
	}

	/** Returns the order service's HTTP port. */
	int orderPort() {
		return this.orders.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	/** Returns the billing service's HTTP port (its operations console). */
	int billingPort() {
		return this.billing.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	JdbcTemplate orderDatabase() {
		return this.orders.getBean(JdbcTemplate.class);
	}

	/** Returns the order service's outbox backlog, through Waybill's admin API. */
	OutboxStats orderOutboxStats() {
		return this.orders.getBean(OutboxAdmin.class).stats();
	}

	JdbcTemplate billingDatabase() {
		return this.billing.getBean(JdbcTemplate.class);
	}

	/** Returns a bean of the order service, for checks of its state. */
	<T> T orderBean(String name, Class<T> type) {
		return this.orders.getBean(name, type);
	}

	/** Returns a bean of the billing service, for checks of its state. */
	<T> T billingBean(String name, Class<T> type) {
		return this.billing.getBean(name, type);
	}

	ServiceMonitor orderMonitor() {
		return this.orderMonitor;
	}

	ServiceMonitor billingMonitor() {
		return this.billingMonitor;
	}

	@Override
	public void close() {
		try {
			this.orders.close();
		}
		finally {
			this.billing.close();
		}
	}

}
