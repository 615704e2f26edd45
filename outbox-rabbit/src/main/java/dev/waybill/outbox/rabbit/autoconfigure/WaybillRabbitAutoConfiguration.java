package dev.waybill.outbox.rabbit.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.impl.CredentialsProvider;
import com.rabbitmq.client.impl.CredentialsRefreshService;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.amqp.autoconfigure.ConnectionFactoryCustomizer;
import org.springframework.boot.amqp.autoconfigure.RabbitConnectionDetails;
import org.springframework.boot.amqp.autoconfigure.RabbitConnectionFactoryBeanConfigurer;
import org.springframework.boot.amqp.autoconfigure.RabbitProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.rabbit.RabbitTopology;
import dev.waybill.outbox.rabbit.autoconfigure.RabbitConnectionSettings.BundleRabbitConnectionFactoryBean;
import dev.waybill.outbox.rabbit.internal.RabbitTransport;
import dev.waybill.outbox.rabbit.internal.RabbitTransportBuilder;
import dev.waybill.outbox.spi.Transport;

/**
 * Auto-configures the relay's {@link Transport} as a {@link RabbitTransport}. Its connection is
 * the one Spring Boot would make: Boot's {@link RabbitConnectionDetails} (from
 * {@code spring.rabbitmq.*}, or a service connection such as a {@code @ServiceConnection}
 * {@code RabbitMQContainer} or Docker Compose), all of its addresses, its SSL bundle, configured
 * by Boot's {@link RabbitConnectionFactoryBeanConfigurer}; then Boot's
 * {@link ConnectionFactoryCustomizer} and Waybill's {@link WaybillRabbitConnectionFactoryCustomizer}
 * beans. Checks the properties at start-up; backs off when the application defines
 * its own {@link Transport}.
 *
 * @since 0.1
 */
@AutoConfiguration(afterName = "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
		beforeName = "dev.waybill.outbox.autoconfigure.WaybillRelayAutoConfiguration")
@ConditionalOnClass({ ConnectionFactory.class, RabbitConnectionDetails.class })
@EnableConfigurationProperties({ WaybillRabbitProperties.class, RabbitProperties.class })
public final class WaybillRabbitAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(Transport.class)
	RabbitTransport waybillRabbitTransport(WaybillRabbitProperties properties, RabbitProperties rabbitProperties,
			Environment environment, ResourceLoader resourceLoader,
			ObjectProvider<RabbitConnectionDetails> connectionDetails,
			ObjectProvider<RabbitConnectionFactoryBeanConfigurer> configurer, ObjectProvider<SslBundles> sslBundles,
			ObjectProvider<CredentialsProvider> credentialsProvider,
			ObjectProvider<CredentialsRefreshService> credentialsRefreshService,
			ObjectProvider<ConnectionFactoryCustomizer> bootCustomizers,
			ObjectProvider<WaybillRabbitConnectionFactoryCustomizer> customizers, ObjectProvider<WaybillThreads> threads,
			ObjectProvider<RabbitTopology> topologies) {
		RabbitTransportBuilder builder = RabbitTransportSettings.builder(properties, rabbitProperties, environment,
				(transport, binder) -> {
					RabbitConnectionDetails details = connectionDetails.getIfAvailable(
							() -> new PropertiesConnectionDetails(rabbitProperties, sslBundles.getIfAvailable()));
					RabbitConnectionFactoryBeanConfigurer bootConfigurer = configurer.getIfAvailable(() -> {
						RabbitConnectionFactoryBeanConfigurer own = new RabbitConnectionFactoryBeanConfigurer(
								resourceLoader, rabbitProperties, details);
						own.setCredentialsProvider(credentialsProvider.getIfUnique());
						own.setCredentialsRefreshService(credentialsRefreshService.getIfUnique());
						return own;
					});
					BundleRabbitConnectionFactoryBean factoryBean = new BundleRabbitConnectionFactoryBean(
							details.getSslBundle());
					bootConfigurer.configure(factoryBean);
					RabbitConnectionSettings.apply(transport, rabbitProperties, details, factoryBean, binder);
				});
		bootCustomizers.orderedStream().forEach((customizer) -> builder.customizer(customizer::customize));
		customizers.orderedStream().forEach((customizer) -> builder.customizer(customizer::customize));
		builder.threads(threads.getIfAvailable(WaybillThreads::platform));
		builder.topology(TopologySettings.topology(properties.getTopology(), topologies.orderedStream().toList()));
		builder.declareSendDestinations(properties.isDeclareSendDestinations());
		return builder.build();
	}

	/**
	 * Declares the topology at start-up, when the transport is Waybill's RabbitMQ one.
	 */
	@Bean
	RabbitTopologyDeclarer waybillRabbitTopologyDeclarer(ObjectProvider<RabbitTransport> transport) {
		return new RabbitTopologyDeclarer(transport.getIfUnique());
	}

	/**
	 * Boot's connection details from {@code spring.rabbitmq.*} when Boot's RabbitMQ
	 * auto-configuration (which defines them) is excluded; Boot's own class is package-private.
	 */
	private static final class PropertiesConnectionDetails implements RabbitConnectionDetails {

		private final RabbitProperties properties;

		private final @Nullable SslBundles sslBundles;

		PropertiesConnectionDetails(RabbitProperties properties, @Nullable SslBundles sslBundles) {
			this.properties = properties;
			this.sslBundles = sslBundles;
		}

		@Override
		public String getUsername() {
			return this.properties.determineUsername();
		}

		@Override
		public String getPassword() {
			return this.properties.determinePassword();
		}

		@Override
		public String getVirtualHost() {
			return this.properties.determineVirtualHost();
		}

		@Override
		public List<Address> getAddresses() {
			List<Address> addresses = new ArrayList<>();
			for (String address : this.properties.determineAddresses()) {
				int colon = address.lastIndexOf(':');
				addresses.add(new Address(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))));
			}
			return addresses;
		}

		@Override
		public @Nullable SslBundle getSslBundle() {
			RabbitProperties.Ssl ssl = this.properties.getSsl();
			String bundle = ssl.getBundle();
			if (!ssl.determineEnabled() || bundle == null || bundle.isEmpty()) {
				return null;
			}
			if (this.sslBundles == null) {
				throw new IllegalStateException("spring.rabbitmq.ssl.bundle is set but there are no SSL bundles");
			}
			return this.sslBundles.getBundle(bundle);
		}

	}

}
