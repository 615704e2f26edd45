package dev.waybill.outbox.spi;

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
	 * Checks that the broker can be reached again; the relay's circuit breaker calls it after its
	 * cool-down. By default opens and closes a channel.
	 * @throws TransportException of kind {@link TransportException.Kind#UNAVAILABLE} when it cannot
	 */
	default void probe() throws TransportException {
		openChannel().close();
	}

	/**
	 * Closes every channel and connection. Outstanding publishes fail as
	 * {@link TransportException.Kind#UNAVAILABLE}.
	 */
	@Override
	void close();

}
