package dev.waybill.outbox.rabbit.test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.rabbitmq.RabbitMQContainer;

import dev.waybill.outbox.rabbit.internal.RabbitTransport;
import dev.waybill.outbox.rabbit.internal.RabbitTransportBuilder;
import dev.waybill.outbox.spi.Transport;

/**
 * The RabbitMQ the tests run against, found once per JVM: the AMQP URI in
 * {@code WAYBILL_TEST_RABBIT_URI}, else a broker on 127.0.0.1:5672 as {@code guest}/{@code guest},
 * else a Testcontainers RabbitMQ when a Docker engine is running. Without any of them the tests
 * fail with a message that says how to provide one; they are never skipped.
 */
public final class TestRabbit {

	/** The client-provided name of the transport's publishing connection. */
	public static final String PUBLISHER_CONNECTION_NAME = RabbitTransport.CONNECTION_NAME;

	/** The property that sets the largest frame the transport asks the broker for. */
	public static final String FRAME_MAX_PROPERTY = RabbitTransport.FRAME_MAX_PROPERTY;

	/** The name of the logger the transport logs its connection's blocks and recoveries with. */
	public static final String TRANSPORT_LOGGER_NAME = RabbitTransport.class.getName();

	private static volatile TestRabbit instance;

	private final String host;

	private final int port;

	private final String virtualHost;

	private final String username;

	private final String password;

	private final String origin;

	private TestRabbit(ConnectionFactory factory, String origin) {
		this.host = factory.getHost();
		this.port = factory.getPort();
		this.virtualHost = factory.getVirtualHost();
		this.username = factory.getUsername();
		this.password = factory.getPassword();
		this.origin = origin;
	}

	/**
	 * Returns the test broker, finding it on first use.
	 * @return the broker
	 */
	public static TestRabbit get() {
		if (instance == null) {
			synchronized (TestRabbit.class) {
				if (instance == null) {
					instance = find();
				}
			}
		}
		return instance;
	}

	public String host() {
		return this.host;
	}

	public int port() {
		return this.port;
	}

	public String virtualHost() {
		return this.virtualHost;
	}

	public String username() {
		return this.username;
	}

	public String password() {
		return this.password;
	}

	/**
	 * Returns the broker's address as an AMQP URI, with the password.
	 * @return the URI
	 */
	public String uri() {
		return "amqp://" + encode(this.username) + ":" + encode(this.password) + "@" + this.host + ":" + this.port + "/"
				+ encode(this.virtualHost);
	}

	/**
	 * Returns a new connection factory for the broker, without automatic recovery.
	 * @return the factory
	 */
	public ConnectionFactory connectionFactory() {
		ConnectionFactory factory = new ConnectionFactory();
		factory.setHost(this.host);
		factory.setPort(this.port);
		factory.setVirtualHost(this.virtualHost);
		factory.setUsername(this.username);
		factory.setPassword(this.password);
		factory.setAutomaticRecoveryEnabled(false);
		factory.setConnectionTimeout(5000);
		return factory;
	}

	/**
	 * Opens a plain connection to the broker, without automatic recovery; the caller closes it.
	 * @return the connection
	 */
	public Connection connect() {
		try {
			return connectionFactory().newConnection("waybill-test");
		}
		catch (IOException | TimeoutException ex) {
			throw new IllegalStateException("Could not connect to the test broker " + this, ex);
		}
	}

	/**
	 * Returns a transport with the default settings on a client connection factory of the
	 * caller's, for a process of its own that finds no test broker but the one it is told.
	 * @param broker the factory, with the broker's address and credentials
	 * @return the transport
	 */
	public static Transport transportOn(ConnectionFactory broker) {
		return RabbitTransport.builder().connectionFactory(broker).build();
	}

	/**
	 * Returns a transport to the nodes of a cluster, with the client's default credentials and
	 * the given confirm timeout.
	 * @param nodes the nodes' addresses
	 * @param confirmTimeout how long a publish waits for the broker's confirm
	 * @return the transport
	 */
	public static Transport transportOn(List<Address> nodes, Duration confirmTimeout) {
		return RabbitTransport.builder().addresses(nodes).confirmTimeout(confirmTimeout).build();
	}

	/**
	 * Returns whether {@code transport} is Waybill's RabbitMQ transport.
	 * @param transport the transport, e.g. an application context's
	 * @return whether it is the RabbitMQ transport
	 */
	public static boolean isRabbit(Transport transport) {
		return transport instanceof RabbitTransport;
	}

	/**
	 * Returns {@code transport} as Waybill's RabbitMQ transport, which the receive endpoint and the
	 * error queues are built on.
	 */
	static RabbitTransport rabbit(Transport transport) {
		if (transport instanceof RabbitTransport rabbit) {
			return rabbit;
		}
		throw new IllegalArgumentException("Not Waybill's RabbitMQ transport: " + transport);
	}

	/**
	 * Starts a transport builder pointed at the broker.
	 * @return the builder
	 */
	public RabbitTransportBuilder transport() {
		return transport(this.host, this.port);
	}

	/**
	 * Starts a transport builder pointed at a proxy in front of the broker.
	 * @param proxy a proxy to {@link #proxy() this broker}
	 * @return the builder
	 */
	public RabbitTransportBuilder transport(TcpProxy proxy) {
		return transport(proxy.host(), proxy.port());
	}

	/**
	 * Starts a proxy in front of the broker; the caller closes it.
	 * @return the proxy
	 */
	public TcpProxy proxy() {
		return TcpProxy.start(this.host, this.port);
	}

	/**
	 * Opens a topology for one test: uniquely named exchanges and queues, deleted when it closes.
	 * @param prefix a readable prefix, e.g. the test's name
	 * @return the topology
	 */
	public TestTopology topology(String prefix) {
		return new TestTopology(connect(), prefix);
	}

	@Override
	public String toString() {
		return "amqp://" + this.username + "@" + this.host + ":" + this.port + "/" + encode(this.virtualHost) + " ("
				+ this.origin + ")";
	}

	/**
	 * Starts a transport builder for this broker's virtual host and user at another address.
	 * @param host the host, such as a proxy's
	 * @param port the port
	 * @return a builder
	 */
	public RabbitTransportBuilder transport(String host, int port) {
		return RabbitTransport.builder().connectionFactory(factory(host, port));
	}

	/**
	 * A client connection factory for this broker's virtual host and user at another address.
	 */
	private ConnectionFactory factory(String host, int port) {
		ConnectionFactory factory = new ConnectionFactory();
		factory.setHost(host);
		factory.setPort(port);
		factory.setVirtualHost(this.virtualHost);
		factory.setUsername(this.username);
		factory.setPassword(this.password);
		return factory;
	}

	private static TestRabbit find() {
		String uri = System.getenv("WAYBILL_TEST_RABBIT_URI");
		if (uri != null && !uri.isBlank()) {
			ConnectionFactory factory = new ConnectionFactory();
			try {
				factory.setUri(uri);
			}
			catch (Exception ex) {
				throw new IllegalStateException("WAYBILL_TEST_RABBIT_URI is not an AMQP URI: " + ex.getMessage(), ex);
			}
			return new TestRabbit(factory, "WAYBILL_TEST_RABBIT_URI");
		}
		if (reachable("127.0.0.1", ConnectionFactory.DEFAULT_AMQP_PORT)) {
			ConnectionFactory factory = new ConnectionFactory();
			factory.setHost("127.0.0.1");
			return new TestRabbit(factory, "local RabbitMQ");
		}
		if (dockerAvailable()) {
			RabbitMQContainer container = new RabbitMQContainer("rabbitmq:3.13-alpine");
			container.start();
			Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
			ConnectionFactory factory = new ConnectionFactory();
			factory.setHost(container.getHost());
			factory.setPort(container.getAmqpPort());
			factory.setUsername(container.getAdminUsername());
			factory.setPassword(container.getAdminPassword());
			return new TestRabbit(factory, "Testcontainers");
		}
		throw new IllegalStateException("No RabbitMQ for the tests. Provide one of: "
				+ "WAYBILL_TEST_RABBIT_URI=amqp://user:password@host:port/vhost; a RabbitMQ on 127.0.0.1:5672 "
				+ "that accepts guest/guest (e.g. rabbitmq-server -detached); or a running Docker engine for "
				+ "Testcontainers.");
	}

	private static String encode(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

	private static boolean reachable(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 1000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static boolean dockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (Throwable ex) {
			return false;
		}
	}

}
