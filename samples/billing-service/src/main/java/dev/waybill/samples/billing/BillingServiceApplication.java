package dev.waybill.samples.billing;

import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The billing service: charges each placed order once, and tells the order service through its
 * consumer outbox.
 * <p>
 * Its configuration is {@code billing-service.yml} (Spring Boot's {@code application.yml}, named
 * after the service so that the demo can run it in one JVM with the order service); override it
 * the usual way, e.g. {@code SPRING_DATASOURCE_URL} or {@code --spring.rabbitmq.host=...}.
 */
@SpringBootApplication
@EnableConfigurationProperties(BillingProperties.class)
public class BillingServiceApplication {

	/** The name of this service's configuration file, {@value}{@code .yml}. */
	public static final String CONFIG_NAME = "billing-service";

	public static void main(String[] args) {
		application().run(args);
	}

	/**
	 * Returns the application, configured from {@code billing-service.yml}.
	 * @return a new application
	 */
	public static SpringApplication application() {
		SpringApplication application = new SpringApplication(BillingServiceApplication.class);
		application.setDefaultProperties(Map.of("spring.config.name", CONFIG_NAME));
		return application;
	}

}
