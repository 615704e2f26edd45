package dev.waybill.outbox.rabbit.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.AddressResolver;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ListAddressResolver;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.rabbit.connection.AbstractConnectionFactory.AddressShuffleMode;
import org.springframework.amqp.rabbit.connection.RabbitConnectionFactoryBean;
import org.springframework.boot.amqp.autoconfigure.RabbitConnectionDetails;
import org.springframework.boot.amqp.autoconfigure.RabbitConnectionFactoryBeanConfigurer;
import org.springframework.boot.amqp.autoconfigure.RabbitProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;

import dev.waybill.outbox.rabbit.internal.RabbitTransportBuilder;

/**
 * Gives a {@link RabbitTransportBuilder} the connection Spring Boot would make: the client
 * factory is configured by Boot's {@link RabbitConnectionFactoryBeanConfigurer} from
 * {@link RabbitConnectionDetails} (so {@code spring.rabbitmq.*}, service connections and SSL
 * bundles apply as they do to Boot's own RabbitMQ support), with every address of the details.
 *
 * @since 0.1
 */
final class RabbitConnectionSettings {

	private static final String SPRING = "spring.rabbitmq.";

	private RabbitConnectionSettings() {
	}

	/**
	 * Configures the builder's connection factory and addresses.
	 * @param factoryBean a factory bean that Boot's configurer has configured
	 */
	static void apply(RabbitTransportBuilder builder, RabbitProperties rabbitProperties, RabbitConnectionDetails details,
			BundleRabbitConnectionFactoryBean factoryBean, Binder binder) {
		List<Address> addresses = addresses(rabbitProperties, details);
		ConnectionFactory factory;
		try {
			factoryBean.afterPropertiesSet();
			factory = factoryBean.getObject();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not create Waybill's RabbitMQ connection factory: " + ex.getMessage(),
					ex);
		}
		builder.connectionFactory(factory).addresses(addresses, resolver(addresses, binder));
	}

	/**
	 * The connection timeout: {@code spring.rabbitmq.connection-timeout}, else 5 s.
	 */
	static Setting<Duration> connectionTimeout(RabbitProperties rabbitProperties) {
		Duration timeout = rabbitProperties.getConnectionTimeout();
		return new Setting<>((timeout != null) ? timeout : Duration.ofSeconds(5), SPRING + "connection-timeout");
	}

	private static List<Address> addresses(RabbitProperties rabbitProperties, RabbitConnectionDetails details) {
		List<Address> addresses = new ArrayList<>();
		for (RabbitConnectionDetails.Address address : details.getAddresses()) {
			if (address.port() < 1 || address.port() > 65535) {
				String property = (rabbitProperties.getAddresses() != null) ? SPRING + "addresses" : SPRING + "port";
				throw new InvalidConfigurationPropertyValueException(property, address.port(),
						"It must be between 1 and 65535. Set " + property + " to the broker's AMQP port, such as 5672.");
			}
			addresses.add(new Address(address.host(), address.port()));
		}
		return addresses;
	}

	/**
	 * The order in which connections and recoveries try the nodes: shuffled each time, unless
	 * {@code spring.rabbitmq.address-shuffle-mode} is set explicitly.
	 */
	private static AddressResolver resolver(List<Address> addresses, Binder binder) {
		AddressShuffleMode mode = binder.bind(SPRING + "address-shuffle-mode", AddressShuffleMode.class)
			.orElse(AddressShuffleMode.RANDOM);
		return switch (mode) {
			case RANDOM -> new ListAddressResolver(addresses);
			case NONE -> new ListAddressResolver(addresses) {

				@Override
				public List<Address> maybeShuffle(List<Address> input) {
					return input;
				}

			};
			case INORDER -> new RotatingAddressResolver(addresses);
		};
	}

	/**
	 * A resolved value and the property it came from, which an error names.
	 */
	record Setting<T>(T value, String property) {

	}

	/**
	 * Each connection (or recovery) starts one node further along the list.
	 */
	private static final class RotatingAddressResolver implements AddressResolver {

		private final List<Address> addresses;

		private final AtomicInteger next = new AtomicInteger();

		RotatingAddressResolver(List<Address> addresses) {
			this.addresses = List.copyOf(addresses);
		}

		@Override
		public List<Address> getAddresses() {
			int start = Math.floorMod(this.next.getAndIncrement(), this.addresses.size());
			List<Address> rotated = new ArrayList<>(this.addresses.subList(start, this.addresses.size()));
			rotated.addAll(this.addresses.subList(0, start));
			return rotated;
		}

		@Override
		public List<Address> maybeShuffle(List<Address> input) {
			return input;
		}

	}

	/**
	 * Boot's {@code SslBundleRabbitConnectionFactoryBean}, which is package-private: TLS from the
	 * connection details' SSL bundle when there is one.
	 */
	static final class BundleRabbitConnectionFactoryBean extends RabbitConnectionFactoryBean {

		private final @Nullable SslBundle sslBundle;

		private boolean ssl;

		private boolean enableHostnameVerification = true;

		BundleRabbitConnectionFactoryBean(@Nullable SslBundle sslBundle) {
			this.sslBundle = sslBundle;
		}

		@Override
		public void setUseSSL(boolean useSSL) {
			this.ssl = useSSL;
			super.setUseSSL(useSSL);
		}

		boolean isSsl() {
			return this.ssl;
		}

		@Override
		public void setEnableHostnameVerification(boolean enable) {
			this.enableHostnameVerification = enable;
			super.setEnableHostnameVerification(enable);
		}

		@Override
		protected void setUpSSL() {
			if (this.sslBundle != null) {
				this.connectionFactory.useSslProtocol(this.sslBundle.createSslContext());
				if (this.enableHostnameVerification) {
					this.connectionFactory.enableHostnameVerification();
				}
			}
			else {
				super.setUpSSL();
			}
		}

	}

}
