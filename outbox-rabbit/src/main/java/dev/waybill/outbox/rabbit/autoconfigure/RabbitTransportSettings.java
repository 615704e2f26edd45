package dev.waybill.outbox.rabbit.autoconfigure;

import java.time.Duration;
import java.util.List;

import com.rabbitmq.client.ConnectionFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;

import dev.waybill.outbox.rabbit.RabbitTransport;

/**
 * Turns {@link WaybillRabbitProperties}, with Spring Boot's {@code spring.rabbitmq.*} as the
 * fallback for connection properties, into a checked {@link RabbitTransport.Builder}. Every check
 * fails with an {@link InvalidConfigurationPropertyValueException} that names the property, its
 * value, the rule and the fix.
 */
final class RabbitTransportSettings {

	/** The relay's lease, which the confirm timeout must stay under. */
	static final String LEASE_DURATION_PROPERTY = "waybill.outbox.relay.lease-duration";

	/** The relay's default lease. */
	static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(12);

	/** RabbitMQ's largest {@code max_message_size}. */
	private static final DataSize LARGEST_BODY = DataSize.ofMegabytes(512);

	private static final String P = WaybillRabbitProperties.PREFIX + ".";

	private RabbitTransportSettings() {
	}

	static RabbitTransport.Builder builder(WaybillRabbitProperties properties, Environment environment) {
		Binder binder = Binder.get(environment);
		RabbitTransport.Builder builder = RabbitTransport.builder();
		String uri = properties.getUri();
		if (uri != null && !uri.isBlank()) {
			checkUri(uri);
			builder.uri(uri);
		}
		else {
			address(properties, binder, builder);
		}
		builder.connectionTimeout(checkTimeout(P + "connection-timeout", properties.getConnectionTimeout(), "5s"));
		Duration confirmTimeout = checkTimeout(P + "confirm-timeout", properties.getConfirmTimeout(), "10s");
		Duration lease = binder.bind(LEASE_DURATION_PROPERTY, Duration.class).orElse(DEFAULT_LEASE_DURATION);
		if (confirmTimeout.compareTo(lease) >= 0) {
			throw new InvalidConfigurationPropertyValueException(P + "confirm-timeout", confirmTimeout,
					"It must be shorter than " + LEASE_DURATION_PROPERTY + " (" + format(lease)
							+ "), or a relay's lease can expire while its publish still waits for the confirm and "
							+ "another relay publishes the same messages again. Lower " + P + "confirm-timeout or raise "
							+ LEASE_DURATION_PROPERTY + ".");
		}
		builder.confirmTimeout(confirmTimeout);
		if (properties.getMaxOutstandingConfirms() < 1) {
			throw new InvalidConfigurationPropertyValueException(P + "max-outstanding-confirms",
					properties.getMaxOutstandingConfirms(),
					"It must be at least 1. Set " + P + "max-outstanding-confirms to a number such as 1000.");
		}
		builder.maxOutstandingConfirms(properties.getMaxOutstandingConfirms());
		String exchangeType = properties.getExchangeType();
		if (!List.of("fanout", "topic", "direct", "headers").contains(exchangeType)) {
			throw new InvalidConfigurationPropertyValueException(P + "exchange-type", exchangeType,
					"It must be fanout, topic, direct or headers. Set " + P
							+ "exchange-type to one of them, such as fanout.");
		}
		builder.exchangeType(exchangeType);
		DataSize maxBodySize = properties.getMaxBodySize();
		if (maxBodySize == null || maxBodySize.toBytes() < 1 || maxBodySize.compareTo(LARGEST_BODY) > 0) {
			throw new InvalidConfigurationPropertyValueException(P + "max-body-size", maxBodySize,
					"It must be between 1B and 512MB, RabbitMQ's largest max_message_size. Set " + P
							+ "max-body-size to the broker's max_message_size, such as 128MB.");
		}
		builder.maxBodySize(maxBodySize.toBytes());
		builder.recoveryInterval(checkTimeout(P + "recovery-interval", properties.getRecoveryInterval(), "5s"));
		return builder;
	}

	private static void address(WaybillRabbitProperties properties, Binder binder, RabbitTransport.Builder builder) {
		String spring = "spring.rabbitmq.";
		List<String> addresses = binder.bind(spring + "addresses", Bindable.listOf(String.class)).orElse(List.of());
		SpringAddress address = addresses.isEmpty() ? null : SpringAddress.parse(addresses.get(0));

		Setting<Boolean> ssl = first(properties.getSsl().getEnabled(), P + "ssl.enabled",
				(address != null && address.secure) ? Boolean.TRUE : null, spring + "addresses",
				binder.bind(spring + "ssl.enabled", Boolean.class).orElse(null), spring + "ssl.enabled", false);
		Setting<String> host = first(properties.getHost(), P + "host", (address != null) ? address.host : null,
				spring + "addresses", binder.bind(spring + "host", String.class).orElse(null), spring + "host",
				"localhost");
		Setting<Integer> port = first(properties.getPort(), P + "port", (address != null) ? address.port : null,
				spring + "addresses", binder.bind(spring + "port", Integer.class).orElse(null), spring + "port",
				ssl.value ? ConnectionFactory.DEFAULT_AMQP_OVER_SSL_PORT : ConnectionFactory.DEFAULT_AMQP_PORT);
		Setting<String> virtualHost = first(properties.getVirtualHost(), P + "virtual-host",
				(address != null) ? address.virtualHost : null, spring + "addresses",
				binder.bind(spring + "virtual-host", String.class).orElse(null), spring + "virtual-host", "/");
		Setting<String> username = first(properties.getUsername(), P + "username",
				(address != null) ? address.username : null, spring + "addresses",
				binder.bind(spring + "username", String.class).orElse(null), spring + "username", "guest");
		Setting<String> password = first(properties.getPassword(), P + "password",
				(address != null) ? address.password : null, spring + "addresses",
				binder.bind(spring + "password", String.class).orElse(null), spring + "password", "guest");

		if (host.value.isBlank() || host.value.contains(",")) {
			throw new InvalidConfigurationPropertyValueException(host.property, host.value,
					"It must be one host name. Set " + P + "host to the broker's host, such as localhost, or "
							+ P + "uri to its address.");
		}
		if (port.value < 1 || port.value > 65535) {
			throw new InvalidConfigurationPropertyValueException(port.property, port.value,
					"It must be between 1 and 65535. Set " + P + "port to the broker's AMQP port, such as 5672.");
		}
		if (virtualHost.value.isEmpty()) {
			throw new InvalidConfigurationPropertyValueException(virtualHost.property, virtualHost.value,
					"It must not be empty. Set " + P + "virtual-host to a virtual host such as /.");
		}
		builder.host(host.value)
			.port(port.value)
			.virtualHost(virtualHost.value)
			.username(username.value)
			.password(password.value)
			.ssl(ssl.value);
	}

	private static void checkUri(String uri) {
		try {
			new ConnectionFactory().setUri(uri);
		}
		catch (Exception ex) {
			String masked = RabbitTransport.Builder.maskPassword(uri);
			throw new InvalidConfigurationPropertyValueException(P + "uri", masked,
					"It is not an AMQP URI (" + String.valueOf(ex.getMessage()).replace(uri, masked) + "). Set " + P
							+ "uri to a URI such as amqp://user:secret@broker:5672/vhost, or amqps:// for TLS.");
		}
	}

	private static Duration checkTimeout(String property, @Nullable Duration value, String example) {
		if (value == null || value.toMillis() < 1 || value.toMillis() > Integer.MAX_VALUE) {
			throw new InvalidConfigurationPropertyValueException(property, value,
					"It must be at least 1ms and at most " + Integer.MAX_VALUE + "ms. Set " + property
							+ " to a duration such as " + example + ".");
		}
		return value;
	}

	private static String format(Duration duration) {
		long millis = duration.toMillis();
		return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
	}

	private static <T> Setting<T> first(@Nullable T own, String ownProperty, @Nullable T address,
			String addressProperty, @Nullable T spring, String springProperty, T fallback) {
		if (own != null) {
			return new Setting<>(own, ownProperty);
		}
		if (address != null) {
			return new Setting<>(address, addressProperty);
		}
		if (spring != null) {
			return new Setting<>(spring, springProperty);
		}
		return new Setting<>(fallback, ownProperty);
	}

	/**
	 * A resolved value and the property it came from, which an error names.
	 */
	private record Setting<T>(T value, String property) {

	}

	/**
	 * One entry of {@code spring.rabbitmq.addresses}, parsed as Spring Boot does:
	 * {@code [amqp[s]://][user[:password]@]host[:port][/virtual-host]}.
	 */
	record SpringAddress(String host, @Nullable Integer port, @Nullable String username, @Nullable String password,
			@Nullable String virtualHost, boolean secure) {

		static SpringAddress parse(String entry) {
			String input = entry.trim();
			boolean secure = false;
			if (input.startsWith("amqps://")) {
				secure = true;
				input = input.substring("amqps://".length());
			}
			else if (input.startsWith("amqp://")) {
				input = input.substring("amqp://".length());
			}
			String username = null;
			String password = null;
			int at = input.lastIndexOf('@');
			if (at > 0) {
				String credentials = input.substring(0, at);
				int colon = credentials.indexOf(':');
				username = (colon >= 0) ? credentials.substring(0, colon) : credentials;
				password = (colon >= 0) ? credentials.substring(colon + 1) : null;
				input = input.substring(at + 1);
			}
			String virtualHost = null;
			int slash = input.indexOf('/');
			if (slash >= 0) {
				virtualHost = input.substring(slash + 1);
				virtualHost = virtualHost.isEmpty() ? "/" : virtualHost;
				input = input.substring(0, slash);
			}
			Integer port = null;
			int colon = input.lastIndexOf(':');
			if (colon > 0 && input.indexOf(']', colon) < 0) {
				try {
					port = Integer.valueOf(input.substring(colon + 1));
				}
				catch (NumberFormatException ex) {
					throw new InvalidConfigurationPropertyValueException("spring.rabbitmq.addresses", entry,
							"The port is not a number. Write each address as host:port, such as localhost:5672.");
				}
				input = input.substring(0, colon);
			}
			return new SpringAddress(input, port, username, password, virtualHost, secure);
		}

	}

}
