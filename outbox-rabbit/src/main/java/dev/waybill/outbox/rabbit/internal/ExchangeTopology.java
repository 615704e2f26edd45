package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;

import dev.waybill.outbox.spi.TransportException;
import dev.waybill.outbox.spi.TransportException.Kind;

/**
 * Makes sure a message's destination exchange exists before it is published: declares the
 * exchange of a message type, checks that any other destination exists. Each check runs on a
 * short-lived channel of its own, because a failed declare closes the channel it ran on; successes
 * are remembered until {@link #forget()}.
 */
final class ExchangeTopology {

	/** The exchange types Waybill declares. */
	static final Set<String> TYPES = Set.of("fanout", "topic", "direct", "headers");

	/**
	 * Opens a channel for one check.
	 */
	@FunctionalInterface
	interface ChannelOpener {

		Channel open() throws TransportException;

	}

	private final String exchangeType;

	private final Set<String> known = ConcurrentHashMap.newKeySet();

	private final String user;

	private final String virtualHost;

	ExchangeTopology(String exchangeType, String user, String virtualHost) {
		this.exchangeType = exchangeType;
		this.user = user;
		this.virtualHost = virtualHost;
	}

	/**
	 * Declares or checks the destination unless that was done already.
	 * @param destination the exchange
	 * @param messageType the message type; equal to {@code destination} when the exchange is the
	 * type's own, which is declared
	 * @param opener opens the channel to check on
	 * @throws TransportException {@link Kind#MESSAGE} when a destination does not exist,
	 * {@link Kind#PERMANENT} when the broker refuses the declare as incompatible, {@link Kind#MESSAGE}
	 * when a permission is missing, {@link Kind#UNAVAILABLE} when the
	 * broker cannot be reached
	 */
	void ensure(String destination, String messageType, ChannelOpener opener) throws TransportException {
		if (destination.isEmpty() || this.known.contains(destination)) {
			return; // "" is the default exchange, which always exists
		}
		boolean declare = destination.equals(messageType);
		Channel channel = opener.open();
		try {
			if (declare) {
				channel.exchangeDeclare(destination, this.exchangeType, true);
			}
			else {
				channel.exchangeDeclarePassive(destination);
			}
			this.known.add(destination);
		}
		catch (IOException | RuntimeException ex) {
			throw failure(destination, declare, ex);
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
	}

	/**
	 * Forgets every checked exchange, so each is checked again on its next use.
	 */
	void forget() {
		this.known.clear();
	}

	private TransportException failure(String destination, boolean declare, Exception ex) {
		if (ex instanceof IllegalArgumentException) {
			return new TransportException(Kind.PERMANENT,
					"The RabbitMQ client refuses exchange '" + destination + "': " + ex.getMessage(), ex);
		}
		ShutdownSignalException signal = BrokerErrors.signal(ex);
		int code = (signal != null) ? BrokerErrors.channelReplyCode(signal) : 0;
		if (code == AMQP.NOT_FOUND) {
			return new TransportException(Kind.MESSAGE, "destination exchange '" + destination + "' does not exist",
					ex);
		}
		// A missing permission, which an operator can grant (retried, see BrokerErrors); not a
		// reserved name (amq.*), which the broker refuses with the same code, for ever.
		if (code == AMQP.ACCESS_REFUSED && BrokerErrors.refusedExchange(signal) != null) {
			return new TransportException(Kind.MESSAGE, BrokerErrors.permissionRefused(declare ? "configure" : "access",
					this.user, this.virtualHost, destination, ex), ex);
		}
		if (code == AMQP.PRECONDITION_FAILED || code == AMQP.ACCESS_REFUSED) {
			return new TransportException(Kind.PERMANENT, "The broker refused to declare exchange '" + destination
					+ "' as a durable " + this.exchangeType + " exchange: " + BrokerErrors.describe(ex), ex);
		}
		if (code != 0) {
			return new TransportException(Kind.MESSAGE, "The broker refused to " + (declare ? "declare" : "check")
					+ " exchange '" + destination + "': " + BrokerErrors.describe(ex), ex);
		}
		return RabbitTransport.unavailable("Could not " + (declare ? "declare" : "check") + " exchange '"
				+ destination + "'", ex);
	}

}
