package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.AddressResolver;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.rabbit.RabbitTopology;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;
import dev.waybill.outbox.spi.TransportException.Kind;

/**
 * A {@link Transport} on the RabbitMQ Java client. It publishes over ONE connection, named
 * {@value #CONNECTION_NAME}, opened on first use and recovered automatically after a network
 * failure; each {@link #openChannel()} creates a channel of its own in publisher-confirm mode.
 * Given several {@link RabbitTransportBuilder#addresses(List) addresses} (the nodes of a cluster), every
 * connection and every recovery tries them in shuffled order, so a lost node's clients spread over
 * the others.
 * <p>
 * Topology: a message whose destination equals its message type (how
 * {@code OutboxPublisher.publish} addresses messages) goes to an exchange of that name, declared
 * durable on first use with the configured exchange type; any other destination must exist, which
 * is checked with a passive declare. Checked exchanges are remembered until the connection is lost,
 * then declared or checked again on their next use.
 * <p>
 * Build one with {@link #builder()}; close it to close the connection. Thread-safe.
 *
 * @since 0.1
 */
public final class RabbitTransport implements Transport {

	/** The client-provided name of the publishing connection, shown in the management UI. */
	public static final String CONNECTION_NAME = "waybill-publisher";

	/** The property that sets the largest frame the transport asks the broker for. */
	public static final String FRAME_MAX_PROPERTY = "waybill.rabbit.frame-max";

	/** RabbitMQ's default {@code frame_max}, and the frame size this transport asks for by default. */
	public static final int DEFAULT_FRAME_MAX = 131072;

	/** The frame header (type, channel, size) and the frame-end octet around a frame's payload. */
	static final int FRAME_OVERHEAD = 8;

	private static final Log logger = LogFactory.getLog(RabbitTransport.class);

	private final ConnectionFactory connectionFactory;

	private final AddressResolver addressResolver;

	private final String address;

	private final ClientSettings client;

	private final PublishSettings settings;

	private final PublisherConnection connection;

	private final ExchangeTopology topology;

	private final ScheduledExecutorService scheduler;

	private final Set<RabbitTransportChannel> channels = ConcurrentHashMap.newKeySet();

	private final BlockedPublishing blocked;

	RabbitTransport(ConnectionFactory connectionFactory, List<Address> addresses, AddressResolver addressResolver,
			ClientSettings client, PublishSettings settings, WaybillThreads threads) {
		this.connectionFactory = connectionFactory;
		this.addressResolver = addressResolver;
		this.address = address(connectionFactory, addresses);
		this.client = client;
		this.settings = settings;
		this.blocked = new BlockedPublishing();
		this.topology = new ExchangeTopology(settings.exchangeType(), connectionFactory.getUsername(),
				connectionFactory.getVirtualHost(), settings.topology(), settings.declareSendDestinations());
		this.connection = new PublisherConnection(connectionFactory, addressResolver, this.address, this.topology,
				this.blocked);
		this.scheduler = Executors.newSingleThreadScheduledExecutor(threads.named("waybill-rabbit-confirm-timeout"));
		long sweep = Math.max(TimeUnit.MILLISECONDS.toNanos(10),
				Math.min(TimeUnit.SECONDS.toNanos(1), settings.confirmTimeout().toNanos() / 10));
		this.scheduler.scheduleWithFixedDelay(this::expireOverdueConfirms, sweep, sweep, TimeUnit.NANOSECONDS);
	}

	/**
	 * Starts a builder with the defaults: {@code amqp://guest:guest@localhost:5672/}, 5 s
	 * connection timeout, 10 s confirm timeout, 1000 outstanding confirms per channel, fanout
	 * exchanges, 128 MB bodies, 5 s between recovery attempts.
	 * @return a new builder
	 */
	public static RabbitTransportBuilder builder() {
		return new RabbitTransportBuilder();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Fails within the connection timeout when the broker cannot be reached, and at once while the
	 * connection is lost and recovering.
	 */
	@Override
	public TransportChannel openChannel() throws TransportException {
		RabbitTransportChannel result = new RabbitTransportChannel(createConfirmingChannel(), this);
		this.channels.add(result);
		if (this.connection.isClosed()) {
			result.close();
			throw new TransportException(Kind.UNAVAILABLE, "The RabbitMQ transport is closed");
		}
		return result;
	}

	/**
	 * Checks that the connection is up by opening and closing a plain channel.
	 */
	@Override
	public void probe() throws TransportException {
		abortQuietly(createChannel());
	}

	/**
	 * Connects now unless connected: the start-up check of an application that publishes. A
	 * broker that cannot be reached is the relay's to wait for; one that was reached and refused
	 * the connection (the credentials, the virtual host), or whose TLS certificate this side
	 * rejects (not trusted, expired, another host's), cannot be waited for.
	 * @throws TransportException ({@link Kind#UNAVAILABLE}) when the broker cannot be reached
	 * @throws IllegalStateException when the broker refused the connection, naming the user, the
	 * virtual host and the broker's reason, or when its TLS certificate was rejected
	 * @since 0.1
	 */
	public void checkConnection() throws TransportException {
		try {
			probe();
		}
		catch (TransportException ex) {
			if (BrokerErrors.connectionRefused(ex)) {
				String refused = "RabbitMQ at " + this.address + " refused Waybill's connection as user '"
						+ this.connectionFactory.getUsername() + "' to virtual host '" + this.connectionFactory.getVirtualHost()
						+ "'";
				String check = "check spring.rabbitmq.*: username, password, virtual-host";
				throw new BrokerRefusedException(refused + " (" + check + "): " + ex.getMessage(),
						refused + ":\n\n    " + ex.getMessage(), "Correct the credentials or the virtual host (" + check
								+ "), or give the user access to the virtual host on the broker.", ex);
			}
			if (BrokerErrors.certificateRejected(ex)) {
				String rejected = "Waybill does not trust the TLS certificate of RabbitMQ at " + this.address;
				String check = "check the trust material and host: spring.rabbitmq.ssl.trust-store or "
						+ "spring.rabbitmq.ssl.bundle, spring.rabbitmq.host or addresses";
				throw new BrokerRefusedException(rejected + " (" + check + "): " + ex.getMessage(),
						rejected + ":\n\n    " + ex.getMessage(), "Trust the broker's certificate authority and connect "
								+ "to a host its certificate names (" + check + ").", ex);
			}
			throw ex;
		}
	}

	/**
	 * Closes the connection and every channel; unconfirmed publishes fail as
	 * {@link Kind#UNAVAILABLE}. Waits at most the connection timeout for the broker.
	 */
	@Override
	public void close() {
		this.connection.close();
		for (RabbitTransportChannel channel : this.channels) {
			channel.close();
		}
		this.scheduler.shutdownNow();
	}

	@Override
	public String toString() {
		return "RabbitTransport[" + this.address + "]";
	}

	Duration confirmTimeout() {
		return this.settings.confirmTimeout();
	}

	int maxOutstandingConfirms() {
		return this.settings.maxOutstandingConfirms();
	}

	long maxBodySize() {
		return this.settings.maxBodySize();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The {@code frame_max} the last connection negotiated (the smaller of the broker's and
	 * {@value #FRAME_MAX_PROPERTY}), or before the first connection the configured frame max, less
	 * {@value #FRAME_OVERHEAD} bytes of frame overhead.
	 */
	@Override
	public @Nullable String blocked() {
		return this.blocked.describe();
	}

	@Override
	public long maxHeaderBytes() {
		int negotiated = this.connection.negotiatedFrameMax();
		int frameMax = this.client.frameMax();
		return ((negotiated > 0) ? Math.min(negotiated, frameMax) : frameMax) - FRAME_OVERHEAD;
	}

	/**
	 * The failure of a publish the broker refused for want of write permission on its exchange.
	 */
	TransportException writeRefused(String exchange, Throwable cause) {
		return new TransportException(Kind.MESSAGE, BrokerErrors.permissionRefused("write",
				this.connectionFactory.getUsername(), this.connectionFactory.getVirtualHost(), exchange, cause), cause);
	}

	ExchangeTopology topology() {
		return this.topology;
	}

	/**
	 * The settings of this transport's connection, for a connection of another role (consuming).
	 * Connect with {@link #newConnection(ExecutorService, String)}: the factory alone knows one node.
	 */
	ConnectionFactory connectionFactory() {
		return this.connectionFactory;
	}

	/**
	 * Opens a connection of another role (consuming) with this transport's settings, to one of its
	 * nodes in shuffled order; its automatic recovery fails over to another node the same way.
	 */
	Connection newConnection(ExecutorService executor, String name) throws IOException, TimeoutException {
		return newConnection(this.connectionFactory, executor, name);
	}

	/**
	 * Opens a connection from {@code factory} (a variant of this transport's, e.g. without automatic
	 * recovery) to one of this transport's nodes in shuffled order.
	 */
	Connection newConnection(ConnectionFactory factory, ExecutorService executor, String name)
			throws IOException, TimeoutException {
		return factory.newConnection(executor, this.addressResolver, name);
	}

	/**
	 * The type of the exchanges declared for message types.
	 */
	String exchangeType() {
		return this.settings.exchangeType();
	}

	/**
	 * Declares the {@linkplain #declaredTopology() declared topology} now, unless it was declared on
	 * the current connection already; the transport does it anyway before its next publication.
	 * @throws TransportException when the broker cannot be reached or refuses a declaration
	 * @since 0.1
	 */
	public void declareTopology() throws TransportException {
		this.topology.ensure("", "", null, this::createChannel);
	}

	/**
	 * The routing key that binds a queue to every message of a type's exchange.
	 */
	String bindAllKey() {
		return ExchangeTopology.bindAllKey(this.settings.exchangeType());
	}

	/**
	 * Returns the topology this transport declares before its first publication after start and
	 * after every recovery.
	 * @return the declared topology, {@link RabbitTopology#EMPTY} by default
	 * @since 0.1
	 */
	public RabbitTopology declaredTopology() {
		return this.settings.topology();
	}

	/**
	 * Opens a plain channel on the shared connection, connecting first when needed.
	 */
	Channel createChannel() throws TransportException {
		return this.connection.createChannel();
	}

	/**
	 * Opens a channel in publisher-confirm mode on the shared connection.
	 */
	Channel createConfirmingChannel() throws TransportException {
		return this.connection.createConfirmingChannel();
	}

	/**
	 * Forgets a channel that is closed and aborts it off the caller's thread, so that the
	 * connection's recovery does not bring it back.
	 */
	void discard(RabbitTransportChannel channel, @Nullable Channel amqpChannel) {
		this.channels.remove(channel);
		if (amqpChannel != null) {
			abortLater(amqpChannel);
		}
	}

	/**
	 * Aborts an AMQP channel off the caller's thread, which may be the connection's own.
	 */
	void abortLater(Channel amqpChannel) {
		try {
			this.scheduler.execute(() -> abortQuietly(amqpChannel));
		}
		catch (RejectedExecutionException ex) {
			// the transport is closed and its connection with it
		}
	}

	private void expireOverdueConfirms() {
		long now = System.nanoTime();
		for (RabbitTransportChannel channel : this.channels) {
			try {
				channel.expireOverdue(now);
			}
			catch (RuntimeException ex) {
				logger.error("Could not expire overdue confirms on " + channel, ex);
			}
		}
	}

	static TransportException unavailable(String what, Throwable cause) {
		return new TransportException(Kind.UNAVAILABLE, what + ": " + BrokerErrors.describe(cause), cause);
	}

	static void abortQuietly(Channel channel) {
		try {
			channel.abort();
		}
		catch (IOException | RuntimeException ex) {
			// closing a channel that is already gone
		}
	}

	private static String address(ConnectionFactory factory, List<Address> addresses) {
		String virtualHost = URLEncoder.encode(factory.getVirtualHost(), StandardCharsets.UTF_8);
		StringBuilder nodes = new StringBuilder();
		for (Address node : addresses) {
			nodes.append((nodes.length() > 0) ? "," : "").append(node.getHost()).append(':').append(node.getPort());
		}
		return (factory.isSSL() ? "amqps" : "amqp") + "://" + factory.getUsername() + "@" + nodes + "/" + virtualHost;
	}

	static String node(Connection connection) {
		return connection.getAddress().getHostAddress() + ":" + connection.getPort();
	}

}
