package dev.waybill.outbox.rabbit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.AddressResolver;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ListAddressResolver;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.rabbit.RabbitTopology;
import dev.waybill.outbox.spi.TransportException.Kind;

/**
 * Builds a {@link RabbitTransport} from a client connection factory that holds the broker's
 * address, credentials, virtual host and TLS (such as one Spring Boot configured), the nodes to
 * connect to, and the transport's own settings. Each setting is checked when the transport is built.
 *
 * @since 0.1
 */
public final class RabbitTransportBuilder {

	private @Nullable ConnectionFactory connectionFactory;

	private @Nullable List<Address> addresses;

	private @Nullable AddressResolver addressResolver;

	private final List<Consumer<ConnectionFactory>> customizers = new ArrayList<>();

	private WaybillThreads threads = WaybillThreads.platform();

	private Duration connectionTimeout = ClientSettings.DEFAULTS.connectionTimeout();

	private Duration recoveryInterval = ClientSettings.DEFAULTS.recoveryInterval();

	private int frameMax = ClientSettings.DEFAULTS.frameMax();

	private PublishSettings publish = PublishSettings.DEFAULTS;

	RabbitTransportBuilder() {
	}

	/**
	 * Sets the client connection factory: the address, credentials, virtual host, TLS and any other
	 * client settings. {@link #build()} sets the timeouts, the automatic recovery and the frame size
	 * on it. Default: a factory for {@code amqp://guest:guest@localhost:5672/}.
	 * @param connectionFactory the factory, used by this transport only
	 * @return this builder
	 */
	public RabbitTransportBuilder connectionFactory(ConnectionFactory connectionFactory) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		return this;
	}

	/**
	 * Adds a customizer of the client connection factory. Customizers run in the order added, before
	 * {@link #build()} sets the timeouts and the automatic recovery.
	 * @param customizer the customizer
	 * @return this builder
	 */
	public RabbitTransportBuilder customizer(Consumer<ConnectionFactory> customizer) {
		this.customizers.add(Objects.requireNonNull(customizer, "customizer must not be null"));
		return this;
	}

	/**
	 * Sets the nodes to connect to, such as the nodes of a cluster. Every connection and every
	 * recovery tries them in a freshly shuffled order until one accepts. Default: the factory's host
	 * and port.
	 * @param addresses the nodes, at least one
	 * @return this builder
	 */
	public RabbitTransportBuilder addresses(List<Address> addresses) {
		if (addresses == null || addresses.isEmpty()) {
			throw new IllegalArgumentException("addresses must name at least one node");
		}
		this.addresses = List.copyOf(addresses);
		this.addressResolver = null;
		return this;
	}

	/**
	 * Sets the nodes to connect to together with the order in which to try them, for another order
	 * than {@link #addresses(List)}'s shuffle.
	 * @param addresses the nodes, at least one, as shown in logs and errors
	 * @param addressResolver what a connection and a recovery try, in its order
	 * @return this builder
	 */
	public RabbitTransportBuilder addresses(List<Address> addresses, AddressResolver addressResolver) {
		addresses(addresses);
		this.addressResolver = Objects.requireNonNull(addressResolver, "addressResolver must not be null");
		return this;
	}

	/**
	 * Sets where the transport's confirm-timeout thread comes from.
	 * @param threads the thread source; {@link WaybillThreads#platform()} by default
	 * @return this builder
	 */
	public RabbitTransportBuilder threads(WaybillThreads threads) {
		this.threads = Objects.requireNonNull(threads, "threads must not be null");
		return this;
	}

	/**
	 * Sets how long to wait for the broker to accept a connection, finish the handshake, or answer a
	 * channel operation (open, declare, close); default 5 s.
	 * @param connectionTimeout the timeout, positive and at most {@link Integer#MAX_VALUE} ms
	 * @return this builder
	 */
	public RabbitTransportBuilder connectionTimeout(Duration connectionTimeout) {
		this.connectionTimeout = connectionTimeout;
		return this;
	}

	/**
	 * Sets how long to wait between attempts to recover a lost connection; default 5 s.
	 * @param recoveryInterval the interval, positive
	 * @return this builder
	 */
	public RabbitTransportBuilder recoveryInterval(Duration recoveryInterval) {
		this.recoveryInterval = recoveryInterval;
		return this;
	}

	/**
	 * Sets the largest frame to ask the broker for; the connection uses the smaller of this and the
	 * broker's {@code frame_max}. A message's properties and headers must fit in one frame, so this
	 * also bounds the headers {@code OutboxPublisher} accepts before the first connection. Default
	 * 131072, RabbitMQ's default {@code frame_max}.
	 * @param bytes the frame size in bytes, at least 4096
	 * @return this builder
	 */
	public RabbitTransportBuilder frameMax(int bytes) {
		this.frameMax = bytes;
		return this;
	}

	/**
	 * Sets how long a publish waits for its confirm before it fails as {@link Kind#MESSAGE};
	 * default 10 s.
	 * @param confirmTimeout the timeout, positive
	 * @return this builder
	 */
	public RabbitTransportBuilder confirmTimeout(Duration confirmTimeout) {
		PublishSettings p = this.publish;
		this.publish = new PublishSettings(confirmTimeout, p.maxOutstandingConfirms(),
				p.exchangeType(), p.maxBodySize(), p.topology(), p.declareSendDestinations());
		return this;
	}

	/**
	 * Sets how many publishes a channel may have waiting for confirms; a publish blocks while the
	 * window is full. Default 1000.
	 * @param maxOutstandingConfirms the window, at least 1
	 * @return this builder
	 */
	public RabbitTransportBuilder maxOutstandingConfirms(int maxOutstandingConfirms) {
		PublishSettings p = this.publish;
		this.publish = new PublishSettings(p.confirmTimeout(), maxOutstandingConfirms, p.exchangeType(),
				p.maxBodySize(), p.topology(), p.declareSendDestinations());
		return this;
	}

	/**
	 * Sets the type of the exchanges declared for message types; default {@code fanout}.
	 * @param exchangeType {@code fanout}, {@code topic}, {@code direct} or {@code headers}
	 * @return this builder
	 */
	public RabbitTransportBuilder exchangeType(String exchangeType) {
		PublishSettings p = this.publish;
		this.publish = new PublishSettings(p.confirmTimeout(), p.maxOutstandingConfirms(), exchangeType,
				p.maxBodySize(), p.topology(), p.declareSendDestinations());
		return this;
	}

	/**
	 * Sets the largest body the broker accepts; larger ones fail as {@link Kind#PERMANENT} without
	 * being sent. Default 128 MB, RabbitMQ's default {@code max_message_size}.
	 * @param bytes the limit in bytes, at least 1
	 * @return this builder
	 */
	public RabbitTransportBuilder maxBodySize(long bytes) {
		PublishSettings p = this.publish;
		this.publish = new PublishSettings(p.confirmTimeout(), p.maxOutstandingConfirms(), p.exchangeType(), bytes,
				p.topology(), p.declareSendDestinations());
		return this;
	}

	/**
	 * Sets the exchanges, queues and bindings to declare before the first publication after start
	 * and after every recovery.
	 * @param topology the topology
	 * @return this builder
	 */
	public RabbitTransportBuilder topology(RabbitTopology topology) {
		PublishSettings p = this.publish;
		this.publish = new PublishSettings(p.confirmTimeout(), p.maxOutstandingConfirms(), p.exchangeType(),
				p.maxBodySize(), topology, p.declareSendDestinations());
		return this;
	}

	/**
	 * Declares the destination exchange of a {@code send} (with the exchange type) on first use, as
	 * for {@code publish}, instead of requiring it to exist. Off by default: a typo in a destination
	 * then fails visibly instead of creating an exchange nobody consumes.
	 * @param declare whether to declare send destinations
	 * @return this builder
	 */
	public RabbitTransportBuilder declareSendDestinations(boolean declare) {
		PublishSettings p = this.publish;
		this.publish = new PublishSettings(p.confirmTimeout(), p.maxOutstandingConfirms(), p.exchangeType(),
				p.maxBodySize(), p.topology(), declare);
		return this;
	}

	/**
	 * Builds the transport. It connects on first use, not here.
	 * @return the transport
	 * @throws IllegalArgumentException when a setting is out of its range
	 */
	public RabbitTransport build() {
		ClientSettings client = new ClientSettings(this.connectionTimeout, this.recoveryInterval, this.frameMax);
		ConnectionFactory factory = (this.connectionFactory != null) ? this.connectionFactory : new ConnectionFactory();
		for (Consumer<ConnectionFactory> customizer : this.customizers) {
			customizer.accept(factory);
		}
		client.applyTo(factory);
		List<Address> nodes = (this.addresses != null) ? this.addresses
				: List.of(new Address(factory.getHost(), factory.getPort()));
		AddressResolver resolver = (this.addressResolver != null) ? this.addressResolver : new ListAddressResolver(nodes);
		return new RabbitTransport(factory, nodes, resolver, client, this.publish, this.threads);
	}

}
