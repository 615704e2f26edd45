package dev.waybill.outbox.rabbit.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.amqp.autoconfigure.RabbitProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;

import dev.waybill.outbox.rabbit.internal.RabbitTransport;
import dev.waybill.outbox.rabbit.internal.RabbitTransportBuilder;

/**
 * Turns {@link WaybillRabbitProperties} into a checked {@link RabbitTransportBuilder}; the
 * connection comes from Spring Boot's pieces ({@link RabbitConnectionSettings}). Every check
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

	static RabbitTransportBuilder builder(WaybillRabbitProperties properties, RabbitProperties rabbitProperties,
			Environment environment, Connection connection) {
		Binder binder = Binder.get(environment);
		RabbitTransportBuilder builder = RabbitTransport.builder();
		connection.configure(builder, binder);
		RabbitConnectionSettings.Setting<Duration> timeout = RabbitConnectionSettings.connectionTimeout(rabbitProperties);
		builder.connectionTimeout(checkTimeout(timeout.property(), timeout.value(), "5s"));
		Duration confirmTimeout = checkTimeout(P + "confirm-timeout", properties.getConfirmTimeout(), "10s");
		Duration lease = binder.bind(LEASE_DURATION_PROPERTY, Duration.class).orElse(DEFAULT_LEASE_DURATION);
		if (lease.isNegative() || lease.isZero()) {
			// The lease's own error, not the confirm timeout's (which would seem too long for it).
			throw new InvalidConfigurationPropertyValueException(LEASE_DURATION_PROPERTY, lease,
					"The value must be a positive duration such as 1s. Set " + LEASE_DURATION_PROPERTY + " accordingly.");
		}
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
		DataSize frameMax = properties.getFrameMax();
		if (frameMax == null || frameMax.toBytes() < 4096 || frameMax.toBytes() > Integer.MAX_VALUE) {
			throw new InvalidConfigurationPropertyValueException(P + "frame-max", frameMax,
					"It must be between 4096B, AMQP's smallest frame_max, and " + Integer.MAX_VALUE + "B. Set " + P
							+ "frame-max to the broker's frame_max, such as 131072B (RabbitMQ's default).");
		}
		builder.frameMax((int) frameMax.toBytes());
		builder.recoveryInterval(checkTimeout(P + "recovery-interval", properties.getRecoveryInterval(), "5s"));
		Duration topologyCheck = properties.getTopologyCheckInterval();
		if (topologyCheck == null || topologyCheck.isNegative()) { // the consumers' setting
			throw new InvalidConfigurationPropertyValueException(P + "topology-check-interval", topologyCheck,
					"It must be zero (declare the topology only when connecting) or positive. Set " + P
							+ "topology-check-interval to a duration such as 30s.");
		}
		return builder;
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

	/**
	 * Gives the builder its connection factory and addresses, from Spring Boot's pieces.
	 */
	@FunctionalInterface
	interface Connection {

		void configure(RabbitTransportBuilder builder, Binder binder);

	}

}
