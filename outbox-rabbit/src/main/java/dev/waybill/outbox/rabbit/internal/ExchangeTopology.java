package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.rabbit.RabbitTopology;
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

	private final RabbitTopology declared;

	private final boolean declareSendDestinations;

	/** Whether {@link #declared} was declared on the current connection. */
	private volatile boolean declaredDone;

	ExchangeTopology(String exchangeType, String user, String virtualHost) {
		this(exchangeType, user, virtualHost, RabbitTopology.EMPTY, false);
	}

	ExchangeTopology(String exchangeType, String user, String virtualHost, RabbitTopology declared,
			boolean declareSendDestinations) {
		this.exchangeType = exchangeType;
		this.user = user;
		this.virtualHost = virtualHost;
		this.declared = declared;
		this.declareSendDestinations = declareSendDestinations;
	}

	/** The routing key that binds every message of a type's exchange: "#" on topic, "" otherwise. */
	static String bindAllKey(String exchangeType) {
		return "topic".equals(exchangeType) ? "#" : "";
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
		ensure(destination, messageType, null, opener);
	}

	/**
	 * Declares or checks the destination unless that was done already, first declaring the
	 * declared topology once per connection. The exchange of a message type (and, with
	 * {@code declareSendDestinations}, any destination) is declared with the transport's exchange
	 * type; so is each exchange of the message's {@code supertypes}, and the message type's exchange
	 * is bound to it, exchange to exchange, so consumers of a supertype receive the subtype.
	 * @param supertypes the supertypes' type names, comma-separated, nearest first, or {@literal null}
	 */
	void ensure(String destination, String messageType, @Nullable String supertypes, ChannelOpener opener)
			throws TransportException {
		if (!this.declaredDone && !this.declared.isEmpty()) {
			declareTopology(opener);
		}
		if (destination.isEmpty() || this.known.contains(destination)) {
			return; // "" is the default exchange, which always exists
		}
		boolean ownType = destination.equals(messageType);
		boolean declare = ownType || this.declareSendDestinations;
		Channel channel = opener.open();
		String current = destination;
		try {
			if (declare) {
				channel.exchangeDeclare(destination, this.exchangeType, true);
			}
			else {
				channel.exchangeDeclarePassive(destination);
			}
			if (ownType && supertypes != null && !supertypes.isBlank()) {
				for (String supertype : supertypes.split(",")) {
					current = supertype.trim();
					channel.exchangeDeclare(current, this.exchangeType, true);
					channel.exchangeBind(current, destination, bindAllKey(this.exchangeType));
				}
			}
			this.known.add(destination);
		}
		catch (IOException | RuntimeException ex) {
			throw failure(current, declare, ex);
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
	}

	private void declareTopology(ChannelOpener opener) throws TransportException {
		Channel channel = opener.open();
		try {
			this.declared.declare(channel);
			this.declaredDone = true;
		}
		catch (IOException | RuntimeException ex) {
			ShutdownSignalException signal = BrokerErrors.signal(ex);
			if (signal == null || BrokerErrors.channelReplyCode(signal) == 0) {
				throw RabbitTransport.unavailable("Could not declare the topology " + this.declared, ex);
			}
			throw new TransportException(Kind.MESSAGE, "The broker refused the declared topology (waybill.rabbit."
					+ "topology): " + BrokerErrors.describe(ex), ex);
		}
		finally {
			RabbitTransport.abortQuietly(channel);
		}
	}

	/**
	 * Forgets every checked exchange, so each is checked again on its next use.
	 */
	void forget() {
		this.declaredDone = false;
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
