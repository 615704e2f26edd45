package dev.waybill.outbox.rabbit.autoconfigure;

import com.rabbitmq.client.ConnectionFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import dev.waybill.outbox.rabbit.RabbitTransport;
import dev.waybill.outbox.spi.Transport;

/**
 * Auto-configures the relay's {@link Transport} as a {@link RabbitTransport} from
 * {@code waybill.rabbit.*}, falling back to {@code spring.rabbitmq.*} for the connection. Checks
 * the properties at start-up; backs off when the application defines its own {@link Transport}.
 *
 * @since 0.1
 */
@AutoConfiguration(beforeName = "dev.waybill.outbox.autoconfigure.WaybillRelayAutoConfiguration")
@ConditionalOnClass(ConnectionFactory.class)
@EnableConfigurationProperties(WaybillRabbitProperties.class)
public final class WaybillRabbitAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(Transport.class)
	RabbitTransport waybillRabbitTransport(WaybillRabbitProperties properties, Environment environment) {
		return RabbitTransportSettings.builder(properties, environment).build();
	}

}
