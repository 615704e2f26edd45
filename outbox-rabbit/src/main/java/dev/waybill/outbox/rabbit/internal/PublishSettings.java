package dev.waybill.outbox.rabbit.internal;

import java.time.Duration;
import java.util.Objects;

import dev.waybill.outbox.rabbit.RabbitTopology;
import dev.waybill.outbox.spi.TransportException.Kind;

/**
 * How the transport publishes.
 *
 * @param confirmTimeout how long a publish waits for its confirm before it fails as
 * {@link Kind#MESSAGE}
 * @param maxOutstandingConfirms how many publishes a channel may have waiting for confirms; a
 * publish blocks while the window is full
 * @param exchangeType the type of the exchanges declared for message types
 * @param maxBodySize the largest body the broker accepts, in bytes; larger ones fail as
 * {@link Kind#PERMANENT} without being sent
 * @param topology the exchanges, queues and bindings to declare before the first publication
 * after start and after every recovery
 * @param declareSendDestinations whether the destination exchange of a {@code send} is declared on
 * first use, as for {@code publish}, instead of required to exist
 * @since 0.1
 */
record PublishSettings(Duration confirmTimeout, int maxOutstandingConfirms, String exchangeType, long maxBodySize,
		RabbitTopology topology, boolean declareSendDestinations) {

	/**
	 * 10 s confirm timeout, 1000 outstanding confirms per channel, fanout exchanges, 128 MB bodies
	 * (RabbitMQ's default {@code max_message_size}), no declared topology, send destinations
	 * required to exist.
	 */
	static final PublishSettings DEFAULTS = new PublishSettings(Duration.ofSeconds(10), 1000, "fanout",
			128L * 1024 * 1024, RabbitTopology.EMPTY, false);

	PublishSettings {
		Checks.positive(confirmTimeout, "confirmTimeout");
		if (maxOutstandingConfirms < 1) {
			throw new IllegalArgumentException("maxOutstandingConfirms must be at least 1, was " + maxOutstandingConfirms);
		}
		if (!ExchangeTopology.TYPES.contains(exchangeType)) {
			throw new IllegalArgumentException(
					"exchangeType must be one of " + ExchangeTopology.TYPES + ", was '" + exchangeType + "'");
		}
		if (maxBodySize < 1) {
			throw new IllegalArgumentException("maxBodySize must be at least 1 byte, was " + maxBodySize);
		}
		Objects.requireNonNull(topology, "topology must not be null");
	}

}
