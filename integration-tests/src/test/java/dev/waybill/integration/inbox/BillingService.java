package dev.waybill.integration.inbox;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The billing service's configuration; run as a process of its own by the crash test
 * (arguments are Spring Boot properties, e.g. {@code --spring.datasource.url=...}).
 */
@Configuration(proxyBeanMethods = false)
public class BillingService {

	@Bean
	Billing.BillingHandler billingHandler(JdbcTemplate jdbc, @Value("${waybill.schema}") String schema) {
		return new Billing.BillingHandler(jdbc, schema);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Process {

	}

	public static void main(String[] args) {
		new SpringApplicationBuilder(Process.class, BillingService.class).run(args);
		System.out.println("CONSUMER STARTED");
		System.out.flush();
	}

}
