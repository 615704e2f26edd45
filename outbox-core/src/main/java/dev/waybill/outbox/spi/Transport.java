package dev.waybill.outbox.spi;

import org.jspecify.annotations.Nullable;

/**
 * Publishes outbox messages to a message broker. The relay opens one {@link TransportChannel} per
 * worker and reopens it after a failure. Implementations must be thread-safe.
 *
 * @since 0.1
 */
public interface Transport extends AutoCloseable {

	/**
	 * Opens a channel for one relay worker, connecting to the broker first if needed.
	 * @return an open channel, never {@literal null}
	 * @throws TransportException of kind {@link TransportException.Kind#UNAVAILABLE} when the
	 * broker cannot be reached
	 */
	TransportChannel openChannel() throws TransportException;

	/**
	 * RabbitMQ's default {@code frame_max}, 131072 bytes, less the 8 bytes of frame header and end
	 * marker: the largest AMQP content header a broker with default settings accepts.
	 */
	long DEFAULT_MAX_HEADER_BYTES = 131072 - 8;

	/**
	 * Returns the largest encoded message header the broker accepts, in bytes: for AMQP 0-9-1 the
	 * payload of the content header frame (class, weight, body size, property flags, and the
	 * properties with the headers table), which must fit in one frame of the negotiated
	 * {@code frame_max}. {@code OutboxPublisher} refuses a message whose header would not fit, so
	 * it must answer at once without contacting the broker: a configured or last-known figure.
	 * By default {@link #DEFAULT_MAX_HEADER_BYTES}.
	 * @return the limit in bytes, {@link Long#MAX_VALUE} for none
	 * @since 0.1
	 */
	default long maxHeaderBytes() {
		return DEFAULT_MAX_HEADER_BYTES;
	}

	/**
	 * Checks that the broker can be reached again; the relay's circuit breaker calls it after its
	 * cool-down. By default opens and closes a channel.
	 * @throws TransportException of kind {@link TransportException.Kind#UNAVAILABLE} when it cannot
	 */
	default void probe() throws TransportException {
		openChannel().close();
	}

	/**
	 * Says why the broker takes no publishes for now although it is connected: RabbitMQ blocks
	 * publishing connections while one of its nodes has a memory or disk alarm, and publishes and
	 * their confirms wait until it clears. By default {@literal null}: never blocked.
	 * @return what blocks publishing (which node and why, for how long), or {@literal null} when
	 * nothing does
	 * @since 0.1
	 */
	default @Nullable String blocked() {
		return null;
	}

	/**
	 * Closes every channel and connection. Outstanding publishes fail as
	 * {@link TransportException.Kind#UNAVAILABLE}.
	 */
	@Override
	void close();

}
