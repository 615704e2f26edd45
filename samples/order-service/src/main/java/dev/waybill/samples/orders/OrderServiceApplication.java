package dev.waybill.samples.orders;

import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The order service: takes orders over HTTP, writes each order and its events in one transaction,
 * and marks orders paid when the billing service says so.
 * <p>
 * Its configuration is {@code order-service.yml} (Spring Boot's {@code application.yml}, named after
 * the service so that the demo can run it in one JVM with the billing service); override it the
 * usual way, e.g. {@code SPRING_DATASOURCE_URL} or {@code --spring.rabbitmq.host=...}.
 */
@SpringBootApplication
public class OrderServiceApplication {

	/** The name of this service's configuration file, {@value}{@code .yml}. */
	public static final String CONFIG_NAME = "order-service";

	public static void main(String[] args) {
		application().run(args);
	}

	/**
	 * Returns the application, configured from {@code order-service.yml}.
	 * @return a new application
	 */
	public static SpringApplication application() {
		SpringApplication application = new SpringApplication(OrderServiceApplication.class);
		application.setDefaultProperties(Map.of("spring.config.name", CONFIG_NAME));
		return application;
	}

}
