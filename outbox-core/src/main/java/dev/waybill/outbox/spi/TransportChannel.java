package dev.waybill.outbox.spi;

import java.util.concurrent.CompletableFuture;

/**
 * One publishing channel with publisher confirms, used by one relay worker thread at a time.
 * Messages published on a channel reach the broker in call order.
 *
 * @since 0.1
 */
public interface TransportChannel extends AutoCloseable {

	/**
	 * Publishes a message. Returns once the message is handed to the broker, blocking only while
	 * the channel's window of unconfirmed messages is full. Never throws: every outcome arrives
	 * through the returned future, which completes normally when the broker confirms the
	 * message, and exceptionally with a {@link TransportException} whose
	 * {@link TransportException#kind() kind} says whose failure it was: the message's (a nack, an
	 * unroutable return, no confirm in time), a permanent one (a destination the broker refuses,
	 * a body over its size limit), or the broker's (connection or channel lost).
	 * @param message the message, must not be {@literal null}
	 * @return the confirm, never {@literal null}
	 */
	CompletableFuture<Void> publish(OutboxMessage message);

	/**
	 * Tells whether the channel can still publish; a closed channel fails every publish as
	 * {@link TransportException.Kind#UNAVAILABLE} and should be replaced.
	 * @return whether the channel is open
	 */
	boolean isOpen();

	/**
	 * Closes the channel; unconfirmed publishes fail as {@link TransportException.Kind#UNAVAILABLE}.
	 */
	@Override
	void close();

}
