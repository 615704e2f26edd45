package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import javax.net.ssl.SSLContext;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.AddressResolver;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ListAddressResolver;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.impl.recovery.RecordedExchange;
import com.rabbitmq.client.impl.recovery.TopologyRecoveryFilter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;
import dev.waybill.outbox.spi.TransportException.Kind;
import dev.waybill.outbox.rabbit.RabbitTopology;

/**
 * A {@link Transport} on the RabbitMQ Java client. It publishes over ONE connection, named
 * {@value #CONNECTION_NAME}, opened on first use and recovered automatically after a network
 * failure; each {@link #openChannel()} creates a channel of its own in publisher-confirm mode.
 * Given several {@link Builder#addresses(List) addresses} (the nodes of a cluster), every
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

	/** AMQP's smallest {@code frame_max}. */
	static final int MIN_FRAME_MAX = 4096;

	/** The frame header (type, channel, size) and the frame-end octet around a frame's payload. */
	static final int FRAME_OVERHEAD = 8;

	private static final Log logger = LogFactory.getLog(RabbitTransport.class);

	private final ConnectionFactory connectionFactory;

	private final AddressResolver addressResolver;

	private final String address;

	private final Duration confirmTimeout;

	private final int maxOutstandingConfirms;

	private final long maxBodySize;

	private final int frameMax;

	/** The frame_max of the last connection, 0 before the first one (or when it has no limit). */
	private volatile int negotiatedFrameMax;

	private final ExchangeTopology topology;

	private final ScheduledExecutorService scheduler;

	private final Set<RabbitTransportChannel> channels = ConcurrentHashMap.newKeySet();

	private final Object connectionLock = new Object();

	private volatile @Nullable Connection connection;

	private volatile boolean closed;

	private final BlockedPublishing blocked;

	private final String exchangeType;

	private final RabbitTopology declaredTopology;

	private RabbitTransport(Builder builder, ConnectionFactory connectionFactory, AddressResolver addressResolver,
			List<Address> addresses) {
		this.connectionFactory = connectionFactory;
		this.addressResolver = addressResolver;
		this.address = address(connectionFactory, addresses);
		this.blocked = new BlockedPublishing();
		this.confirmTimeout = builder.confirmTimeout;
		this.maxOutstandingConfirms = builder.maxOutstandingConfirms;
		this.maxBodySize = builder.maxBodySize;
		this.frameMax = builder.frameMax;
		this.exchangeType = builder.exchangeType;
		this.topology = new ExchangeTopology(builder.exchangeType, connectionFactory.getUsername(),
				connectionFactory.getVirtualHost(), builder.topology, builder.declareSendDestinations);
		this.declaredTopology = builder.topology;
		this.scheduler = Executors
			.newSingleThreadScheduledExecutor(builder.threads.named("waybill-rabbit-confirm-timeout"));
		long sweep = Math.max(TimeUnit.MILLISECONDS.toNanos(10),
				Math.min(TimeUnit.SECONDS.toNanos(1), this.confirmTimeout.toNanos() / 10));
		this.scheduler.scheduleWithFixedDelay(this::expireOverdueConfirms, sweep, sweep, TimeUnit.NANOSECONDS);
	}

	/**
	 * Starts a builder with the defaults: {@code amqp://guest:guest@localhost:5672/}, 5 s
	 * connection timeout, 10 s confirm timeout, 1000 outstanding confirms per channel, fanout
	 * exchanges, 128 MB bodies, 5 s between recovery attempts.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
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
		if (this.closed) {
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
	 * @since 0.4
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
				String check = "check waybill.rabbit.* or spring.rabbitmq.*: username, password, virtual-host";
				throw new BrokerRefusedException(refused + " (" + check + "): " + ex.getMessage(),
						refused + ":\n\n    " + ex.getMessage(), "Correct the credentials or the virtual host (" + check
								+ "), or give the user access to the virtual host on the broker.", ex);
			}
			if (BrokerErrors.certificateRejected(ex)) {
				String rejected = "Waybill does not trust the TLS certificate of RabbitMQ at " + this.address;
				String check = "check the trust material and host: spring.rabbitmq.ssl.trust-store or "
						+ "spring.rabbitmq.ssl.bundle, spring.rabbitmq.host or addresses, or waybill.rabbit.*";
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
		this.closed = true;
		Connection current;
		synchronized (this.connectionLock) {
			current = this.connection;
			this.connection = null;
		}
		if (current != null) {
			current.abort(this.connectionFactory.getConnectionTimeout());
		}
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
		return this.confirmTimeout;
	}

	int maxOutstandingConfirms() {
		return this.maxOutstandingConfirms;
	}

	long maxBodySize() {
		return this.maxBodySize;
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
		int negotiated = this.negotiatedFrameMax;
		return ((negotiated > 0) ? Math.min(negotiated, this.frameMax) : this.frameMax) - FRAME_OVERHEAD;
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
		return this.exchangeType;
	}

	/**
	 * Declares the {@linkplain #declaredTopology() declared topology} now, unless it was declared on
	 * the current connection already; the transport does it anyway before its next publication.
	 * @throws TransportException when the broker cannot be reached or refuses a declaration
	 * @since 0.3
	 */
	public void declareTopology() throws TransportException {
		this.topology.ensure("", "", null, this::createChannel);
	}

	/**
	 * The routing key that binds a queue to every message of a type's exchange.
	 */
	String bindAllKey() {
		return ExchangeTopology.bindAllKey(this.exchangeType);
	}

	/**
	 * Returns the topology this transport declares before its first publication after start and
	 * after every recovery.
	 * @return the declared topology, {@link RabbitTopology#EMPTY} by default
	 * @since 0.3
	 */
	public RabbitTopology declaredTopology() {
		return this.declaredTopology;
	}

	/**
	 * Opens a plain channel on the shared connection, connecting first when needed.
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
			throw unavailable("Could not open a channel to " + this.address, ex);
		}
	}

	/**
	 * Opens a channel in publisher-confirm mode on the shared connection.
	 */
	Channel createConfirmingChannel() throws TransportException {
		Channel channel = createChannel();
		try {
			channel.confirmSelect();
		}
		catch (IOException | RuntimeException ex) {
			abortQuietly(channel);
			throw unavailable("Could not enable publisher confirms on " + this.address, ex);
		}
		return channel;
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

	private Connection connection() throws TransportException {
		if (this.closed) {
			throw new TransportException(Kind.UNAVAILABLE, "The RabbitMQ transport is closed");
		}
		Connection current = this.connection;
		if (current == null) {
			synchronized (this.connectionLock) {
				current = this.connection;
				if (current == null) {
					current = connect();
					if (this.closed) {
						current.abort(this.connectionFactory.getConnectionTimeout());
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
			created = this.connectionFactory.newConnection(null, this.addressResolver, CONNECTION_NAME);
		}
		catch (IOException | TimeoutException | RuntimeException ex) {
			throw unavailable("Could not connect to " + this.address, ex);
		}
		this.negotiatedFrameMax = created.getFrameMax();
		// Exchanges may be gone when the connection comes back (another node, a broker reset).
		created.addShutdownListener((cause) -> {
			this.topology.forget();
			this.blocked.forget();
			if (!cause.isInitiatedByApplication() && !this.closed) {
				// Now, not at the recovery's first attempt, which the client makes an interval later.
				logger.warn("Waybill's connection to " + node(created) + " is lost; recovering: "
						+ BrokerErrors.describe(cause));
			}
		});
		// The node, not the configured address list: on a cluster, which node went away or alarmed.
		created.addBlockedListener((reason) -> this.blocked.blocked(node(created), reason), this.blocked::unblocked);
		((Recoverable) created).addRecoveryListener(new RecoveryListener() {

			@Override
			public void handleRecovery(Recoverable recoverable) {
				RabbitTransport.this.topology.forget();
				if (recoverable instanceof Connection recovered) {
					RabbitTransport.this.negotiatedFrameMax = recovered.getFrameMax();
				}
				logger.info("Waybill's connection to " + RabbitTransport.this.address + " is recovered on "
						+ node((Connection) recoverable));
			}

			@Override
			public void handleRecoveryStarted(Recoverable recoverable) {
				logger.debug("Waybill's connection to " + RabbitTransport.this.address + " tries to recover");
			}

		});
		return created;
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

	/**
	 * Builds a {@link RabbitTransport}. Either give a {@link #uri(String) URI} or the parts of the
	 * address; the URI wins when both are given.
	 */
	public static final class Builder {

		private @Nullable String uri;

		private String host = "localhost";

		private int port = -1;

		private String virtualHost = "/";

		private String username = "guest";

		private String password = "guest";

		private boolean ssl;

		private Duration connectionTimeout = Duration.ofSeconds(5);

		private Duration confirmTimeout = Duration.ofSeconds(10);

		private int maxOutstandingConfirms = 1000;

		private String exchangeType = "fanout";

		private RabbitTopology topology = RabbitTopology.EMPTY;

		private boolean declareSendDestinations;

		private long maxBodySize = 128L * 1024 * 1024;

		private int frameMax = DEFAULT_FRAME_MAX;

		private Duration recoveryInterval = Duration.ofSeconds(5);

		private @Nullable ConnectionFactory connectionFactory;

		private @Nullable List<Address> addresses;

		private @Nullable AddressResolver addressResolver;

		private final List<Consumer<ConnectionFactory>> customizers = new ArrayList<>();

		private WaybillThreads threads = WaybillThreads.platform();

		/**
		 * Sets where the transport's confirm-timeout thread comes from.
		 * @param threads the thread source; {@link WaybillThreads#platform()} by default
		 * @return this builder
		 */
		public Builder threads(WaybillThreads threads) {
			this.threads = Objects.requireNonNull(threads, "threads must not be null");
			return this;
		}

		private Builder() {
		}

		/**
		 * Adds a customizer of the client connection factory, for client settings this builder
		 * does not cover. Customizers run in the order added, before {@link #build()} sets the
		 * timeouts and the automatic recovery.
		 * @param customizer the customizer
		 * @return this builder
		 */
		public Builder customizer(Consumer<ConnectionFactory> customizer) {
			this.customizers.add(Objects.requireNonNull(customizer, "customizer must not be null"));
			return this;
		}

		/**
		 * Starts from a connection factory that already holds the credentials, virtual host, TLS
		 * and any other client settings, such as one configured by Spring Boot; the URI and the
		 * address parts of this builder are then ignored. {@link #build()} still sets the
		 * timeouts and the automatic recovery on it.
		 * @param connectionFactory the factory, used by this transport only
		 * @return this builder
		 */
		public Builder connectionFactory(ConnectionFactory connectionFactory) {
			this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
			return this;
		}

		/**
		 * Sets the nodes to connect to, such as the nodes of a cluster. Every connection and every
		 * recovery tries them in a freshly shuffled order until one accepts. Default: the host and
		 * port of the URI or the parts.
		 * @param addresses the nodes, at least one
		 * @return this builder
		 */
		public Builder addresses(List<Address> addresses) {
			if (addresses == null || addresses.isEmpty()) {
				throw new IllegalArgumentException("addresses must name at least one node");
			}
			this.addresses = List.copyOf(addresses);
			this.addressResolver = null;
			return this;
		}

		/**
		 * Sets the nodes to connect to together with the order in which to try them, for another
		 * order than {@link #addresses(List)}'s shuffle.
		 * @param addresses the nodes, at least one, as shown in logs and errors
		 * @param addressResolver what a connection and a recovery try, in its order
		 * @return this builder
		 */
		public Builder addresses(List<Address> addresses, AddressResolver addressResolver) {
			addresses(addresses);
			this.addressResolver = Objects.requireNonNull(addressResolver, "addressResolver must not be null");
			return this;
		}

		/**
		 * Sets the whole address as an AMQP URI, {@code amqp[s]://user:password@host:port/vhost}.
		 * @param uri the URI; {@literal null} to use the parts instead
		 * @return this builder
		 */
		public Builder uri(@Nullable String uri) {
			this.uri = uri;
			return this;
		}

		/**
		 * Sets the broker's host; default {@code localhost}.
		 * @param host the host
		 * @return this builder
		 */
		public Builder host(String host) {
			this.host = requireText(host, "host");
			return this;
		}

		/**
		 * Sets the broker's port; default 5672, or 5671 with TLS.
		 * @param port the port, 1 to 65535
		 * @return this builder
		 */
		public Builder port(int port) {
			if (port < 1 || port > 65535) {
				throw new IllegalArgumentException("port must be between 1 and 65535, was " + port);
			}
			this.port = port;
			return this;
		}

		/**
		 * Sets the virtual host; default {@code /}.
		 * @param virtualHost the virtual host
		 * @return this builder
		 */
		public Builder virtualHost(String virtualHost) {
			this.virtualHost = requireText(virtualHost, "virtualHost");
			return this;
		}

		/**
		 * Sets the user name; default {@code guest}.
		 * @param username the user name
		 * @return this builder
		 */
		public Builder username(String username) {
			this.username = Objects.requireNonNull(username, "username must not be null");
			return this;
		}

		/**
		 * Sets the password; default {@code guest}.
		 * @param password the password
		 * @return this builder
		 */
		public Builder password(String password) {
			this.password = Objects.requireNonNull(password, "password must not be null");
			return this;
		}

		/**
		 * Sets whether to connect with TLS, verifying the broker's certificate and host name
		 * against the JVM's default trust store; default off.
		 * @param ssl whether to use TLS
		 * @return this builder
		 */
		public Builder ssl(boolean ssl) {
			this.ssl = ssl;
			return this;
		}

		/**
		 * Sets how long to wait for the broker to accept a connection, finish the handshake, or
		 * answer a channel operation (open, declare, close); default 5 s.
		 * @param connectionTimeout the timeout, positive and at most {@link Integer#MAX_VALUE} ms
		 * @return this builder
		 */
		public Builder connectionTimeout(Duration connectionTimeout) {
			this.connectionTimeout = requireMillis(connectionTimeout, "connectionTimeout");
			return this;
		}

		/**
		 * Sets how long a publish waits for its confirm before it fails as
		 * {@link Kind#MESSAGE}; default 10 s.
		 * @param confirmTimeout the timeout, positive
		 * @return this builder
		 */
		public Builder confirmTimeout(Duration confirmTimeout) {
			this.confirmTimeout = requirePositive(confirmTimeout, "confirmTimeout");
			return this;
		}

		/**
		 * Sets how many publishes a channel may have waiting for confirms; a publish blocks while
		 * the window is full. Default 1000.
		 * @param maxOutstandingConfirms the window, at least 1
		 * @return this builder
		 */
		public Builder maxOutstandingConfirms(int maxOutstandingConfirms) {
			if (maxOutstandingConfirms < 1) {
				throw new IllegalArgumentException(
						"maxOutstandingConfirms must be at least 1, was " + maxOutstandingConfirms);
			}
			this.maxOutstandingConfirms = maxOutstandingConfirms;
			return this;
		}

		/**
		 * Sets the type of the exchanges declared for message types; default {@code fanout}.
		 * @param exchangeType {@code fanout}, {@code topic}, {@code direct} or {@code headers}
		 * @return this builder
		 */
		public Builder exchangeType(String exchangeType) {
			if (!ExchangeTopology.TYPES.contains(exchangeType)) {
				throw new IllegalArgumentException(
						"exchangeType must be one of " + ExchangeTopology.TYPES + ", was '" + exchangeType + "'");
			}
			this.exchangeType = exchangeType;
			return this;
		}

		/**
		 * Sets the largest body the broker accepts; larger ones fail as {@link Kind#PERMANENT}
		 * without being sent. Default 128 MB, RabbitMQ's default {@code max_message_size}.
		 * @param bytes the limit in bytes, at least 1
		 * @return this builder
		 */
		public Builder maxBodySize(long bytes) {
			if (bytes < 1) {
				throw new IllegalArgumentException("maxBodySize must be at least 1 byte, was " + bytes);
			}
			this.maxBodySize = bytes;
			return this;
		}

		/**
		 * Sets the largest frame to ask the broker for; the connection uses the smaller of this and
		 * the broker's {@code frame_max}. A message's properties and headers must fit in one frame,
		 * so this also bounds the headers {@code OutboxPublisher} accepts before the first
		 * connection. Default 131072, RabbitMQ's default {@code frame_max}; raise it only for a
		 * broker configured with a larger one.
		 * @param bytes the frame size in bytes, at least 4096
		 * @return this builder
		 */
		public Builder frameMax(int bytes) {
			if (bytes < MIN_FRAME_MAX) {
				throw new IllegalArgumentException("frameMax must be at least " + MIN_FRAME_MAX + " bytes, was " + bytes);
			}
			this.frameMax = bytes;
			return this;
		}

		/**
		 * Sets how long to wait between attempts to recover a lost connection; default 5 s.
		 * @param recoveryInterval the interval, positive
		 * @return this builder
		 */
		public Builder recoveryInterval(Duration recoveryInterval) {
			this.recoveryInterval = requirePositive(recoveryInterval, "recoveryInterval");
			return this;
		}

		/**
		 * Sets the exchanges, queues and bindings to declare before the first publication after start
		 * and after every recovery.
		 * @param topology the topology
		 * @return this builder
		 * @since 0.3
		 */
		public Builder topology(RabbitTopology topology) {
			this.topology = Objects.requireNonNull(topology, "topology must not be null");
			return this;
		}

		/**
		 * Declares the destination exchange of a {@code send} (with the exchange type) on first use,
		 * as for {@code publish}, instead of requiring it to exist. Off by default: a typo in a
		 * destination then fails visibly instead of creating an exchange nobody consumes.
		 * @param declare whether to declare send destinations
		 * @return this builder
		 * @since 0.3
		 */
		public Builder declareSendDestinations(boolean declare) {
			this.declareSendDestinations = declare;
			return this;
		}

		/**
		 * Builds the transport. It connects on first use, not here.
		 * @return the transport
		 * @throws IllegalArgumentException when the URI is not a valid AMQP URI
		 */
		public RabbitTransport build() {
			ConnectionFactory factory = (this.connectionFactory != null) ? this.connectionFactory : ownFactory();
			for (Consumer<ConnectionFactory> customizer : this.customizers) {
				customizer.accept(factory);
			}
			int timeout = (int) this.connectionTimeout.toMillis();
			factory.setConnectionTimeout(timeout);
			factory.setHandshakeTimeout(timeout);
			factory.setChannelRpcTimeout(timeout);
			factory.setAutomaticRecoveryEnabled(true);
			factory.setTopologyRecoveryEnabled(true);
			// Exchanges are declared on short-lived channels, closed by the time of a recovery, so
			// the client cannot replay them; they are declared again on their next use instead.
			factory.setTopologyRecoveryFilter(new TopologyRecoveryFilter() {

				@Override
				public boolean filterExchange(RecordedExchange exchange) {
					return false;
				}

			});
			factory.setNetworkRecoveryInterval(this.recoveryInterval.toMillis());
			factory.setRequestedFrameMax(this.frameMax);
			factory.setExceptionHandler(new ClientExceptionHandler());
			List<Address> nodes = (this.addresses != null) ? this.addresses
					: List.of(new Address(factory.getHost(), factory.getPort()));
			AddressResolver resolver = (this.addressResolver != null) ? this.addressResolver
					: new ListAddressResolver(nodes);
			return new RabbitTransport(this, factory, resolver, nodes);
		}

		private ConnectionFactory ownFactory() {
			ConnectionFactory factory = new ConnectionFactory();
			if (this.uri != null) {
				try {
					factory.setUri(this.uri);
				}
				catch (Exception ex) { // the cause's text may show the URI: keep it out
					String masked = maskPassword(this.uri);
					throw new IllegalArgumentException(
							"Invalid AMQP URI '" + masked + "': " + String.valueOf(ex.getMessage()).replace(this.uri, masked));
				}
			}
			else {
				factory.setHost(this.host);
				factory.setPort((this.port > 0) ? this.port
						: this.ssl ? ConnectionFactory.DEFAULT_AMQP_OVER_SSL_PORT : ConnectionFactory.DEFAULT_AMQP_PORT);
				factory.setVirtualHost(this.virtualHost);
				factory.setUsername(this.username);
				factory.setPassword(this.password);
			}
			if ((this.uri != null) ? factory.isSSL() : this.ssl) {
				verifyingTls(factory);
			}
			return factory;
		}

		/**
		 * Returns an AMQP URI with its password, if any, replaced by {@code ******}.
		 * @param uri the URI
		 * @return the URI safe to show
		 */
		public static String maskPassword(String uri) {
			return uri.replaceFirst("^([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@]*:)[^@/]*@", "$1******@");
		}

		// The JVM's trust store decides the certificate; the client checks no host name unless told.
		private static void verifyingTls(ConnectionFactory factory) {
			try {
				factory.useSslProtocol(SSLContext.getDefault());
			}
			catch (GeneralSecurityException ex) {
				throw new IllegalStateException("The JVM has no default TLS context", ex);
			}
			factory.enableHostnameVerification();
		}

		private static String requireText(String value, String name) {
			if (value == null || value.isBlank()) {
				throw new IllegalArgumentException(name + " must not be blank");
			}
			return value;
		}

		private static Duration requirePositive(Duration value, String name) {
			if (value == null || value.isNegative() || value.isZero()) {
				throw new IllegalArgumentException(name + " must be positive, was " + value);
			}
			return value;
		}

		private static Duration requireMillis(Duration value, String name) {
			requirePositive(value, name);
			if (value.toMillis() < 1 || value.toMillis() > Integer.MAX_VALUE) {
				throw new IllegalArgumentException(
						name + " must be between 1ms and " + Integer.MAX_VALUE + "ms, was " + value);
			}
			return value;
		}

	}

}
