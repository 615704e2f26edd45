package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

import com.rabbitmq.client.AddressResolver;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.spi.TransportException;
import dev.waybill.outbox.spi.TransportException.Kind;

/**
 * The transport's one publishing connection, named {@value RabbitTransport#CONNECTION_NAME}:
 * opened on first use, recovered by the client after a network failure, watched for blocking and
 * for the frame size each connection negotiates.
 *
 * @since 0.1
 */
final class PublisherConnection {

	// the transport's logger: operators configure and filter the connection's messages by that name
	private static final Log logger = LogFactory.getLog(RabbitTransport.class);

	private final ConnectionFactory factory;

	private final AddressResolver resolver;

	private final String address;

	private final ExchangeTopology topology;

	private final BlockedPublishing blocked;

	private final Object lock = new Object();

	private volatile @Nullable Connection connection;

	private volatile boolean closed;

	/** The frame_max of the last connection, 0 before the first one (or when it has no limit). */
	private volatile int negotiatedFrameMax;

	PublisherConnection(ConnectionFactory factory, AddressResolver resolver, String address, ExchangeTopology topology,
			BlockedPublishing blocked) {
		this.factory = factory;
		this.resolver = resolver;
		this.address = address;
		this.topology = topology;
		this.blocked = blocked;
	}

	boolean isClosed() {
		return this.closed;
	}

	int negotiatedFrameMax() {
		return this.negotiatedFrameMax;
	}

	/**
	 * Opens a plain channel on the connection, connecting first when needed.
	 */
	Channel createChannel() throws TransportException {
		Connection current = connection();
		try {
			Channel channel = current.createChannel();
			if (channel == null) {
				throw new TransportException(Kind.UNAVAILABLE,
						"No channel left on the connection to " + this.address + " (channel-max reached)");
			}
			return channel;
		}
		catch (IOException | RuntimeException ex) {
			throw RabbitTransport.unavailable("Could not open a channel to " + this.address, ex);
		}
	}

	/**
	 * Opens a channel in publisher-confirm mode.
	 */
	Channel createConfirmingChannel() throws TransportException {
		Channel channel = createChannel();
		try {
			channel.confirmSelect();
		}
		catch (IOException | RuntimeException ex) {
			RabbitTransport.abortQuietly(channel);
			throw RabbitTransport.unavailable("Could not enable publisher confirms on " + this.address, ex);
		}
		return channel;
	}

	/**
	 * Closes the connection, waiting at most the connection timeout for the broker.
	 */
	void close() {
		this.closed = true;
		Connection current;
		synchronized (this.lock) {
			current = this.connection;
			this.connection = null;
		}
		if (current != null) {
			current.abort(this.factory.getConnectionTimeout());
		}
	}

	private Connection connection() throws TransportException {
		if (this.closed) {
			throw new TransportException(Kind.UNAVAILABLE, "The RabbitMQ transport is closed");
		}
		Connection current = this.connection;
		if (current == null) {
			synchronized (this.lock) {
				current = this.connection;
				if (current == null) {
					current = connect();
					if (this.closed) {
						current.abort(this.factory.getConnectionTimeout());
						throw new TransportException(Kind.UNAVAILABLE, "The RabbitMQ transport is closed");
					}
					this.connection = current;
				}
			}
		}
		if (!current.isOpen()) {
			throw new TransportException(Kind.UNAVAILABLE,
					"The connection to " + this.address + " is lost and recovering: "
							+ BrokerErrors.describe(current.getCloseReason()));
		}
		return current;
	}

	private Connection connect() throws TransportException {
		Connection created;
		try {
			created = this.factory.newConnection(null, this.resolver, RabbitTransport.CONNECTION_NAME);
		}
		catch (IOException | TimeoutException | RuntimeException ex) {
			throw RabbitTransport.unavailable("Could not connect to " + this.address, ex);
		}
		this.negotiatedFrameMax = created.getFrameMax();
		// Exchanges may be gone when the connection comes back (another node, a broker reset).
		created.addShutdownListener((cause) -> {
			this.topology.forget();
			this.blocked.forget();
			if (!cause.isInitiatedByApplication() && !this.closed) {
				// Now, not at the recovery's first attempt, which the client makes an interval later.
				logger.warn("Waybill's connection to " + RabbitTransport.node(created) + " is lost; recovering: "
						+ BrokerErrors.describe(cause));
			}
		});
		// The node, not the configured address list: on a cluster, which node went away or alarmed.
		created.addBlockedListener((reason) -> this.blocked.blocked(RabbitTransport.node(created), reason),
				this.blocked::unblocked);
		((Recoverable) created).addRecoveryListener(new RecoveryListener() {

			@Override
			public void handleRecovery(Recoverable recoverable) {
				PublisherConnection.this.topology.forget();
				if (recoverable instanceof Connection recovered) {
					PublisherConnection.this.negotiatedFrameMax = recovered.getFrameMax();
				}
				logger.info("Waybill's connection to " + PublisherConnection.this.address + " is recovered on "
						+ RabbitTransport.node((Connection) recoverable));
			}

			@Override
			public void handleRecoveryStarted(Recoverable recoverable) {
				logger.debug("Waybill's connection to " + PublisherConnection.this.address + " tries to recover");
			}

		});
		return created;
	}

}
