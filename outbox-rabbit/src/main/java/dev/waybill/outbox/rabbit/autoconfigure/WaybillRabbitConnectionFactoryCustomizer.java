package dev.waybill.outbox.rabbit.autoconfigure;

import com.rabbitmq.client.ConnectionFactory;

/**
 * Customizes the RabbitMQ client {@link ConnectionFactory} of Waybill's connections (publishing
 * and consuming) for what Spring Boot's {@code spring.rabbitmq.*} does not cover, such as a
 * metrics collector or a socket configurator. Beans of this type run after Spring Boot's
 * {@code ConnectionFactoryCustomizer} beans, in their order. Waybill sets the timeouts and the
 * automatic recovery after them: {@code spring.rabbitmq.connection-timeout} and
 * {@code waybill.rabbit.recovery-interval}, {@code waybill.rabbit.frame-max}.
 *
 * @since 0.1
 */
@FunctionalInterface
public interface WaybillRabbitConnectionFactoryCustomizer {

	/**
	 * Customizes the factory.
	 * @param factory the factory of Waybill's connections
	 */
	void customize(ConnectionFactory factory);

}
