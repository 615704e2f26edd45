package dev.waybill.outbox.rabbit.test;

import java.time.Duration;
import java.util.Collection;
import java.util.List;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ApplicationContext;
import org.springframework.context.Lifecycle;
import org.springframework.test.util.ReflectionTestUtils;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.internal.RabbitReceiveEndpoint;
import dev.waybill.outbox.rabbit.internal.ReceiveEndpointSettings;
import dev.waybill.outbox.rabbit.internal.health.ConsumersHealthIndicator;
import dev.waybill.outbox.spi.Transport;

/**
 * Waybill's RabbitMQ receive endpoint, for tests of other modules: the one an application context
 * auto-configured ({@link #of(ApplicationContext)}), or one built by hand on a transport and a
 * delivery processor ({@link #create}), for tests that run consumers without a context, on a
 * database they break or with several consumers of one queue. Closing it stops it.
 */
public final class TestReceiveEndpoint implements Lifecycle, AutoCloseable {

	/** The name of the logger the endpoint logs its consumers' losses and recoveries with. */
	public static final String LOGGER_NAME = RabbitReceiveEndpoint.class.getName();

	/** The name the endpoint's broker connections are given. */
	public static final String CONNECTION_NAME = RabbitReceiveEndpoint.CONNECTION_NAME;

	private final RabbitReceiveEndpoint endpoint;

	private TestReceiveEndpoint(RabbitReceiveEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/**
	 * Returns the endpoint an application context auto-configured.
	 * @param context the context
	 * @return the endpoint
	 */
	public static TestReceiveEndpoint of(ApplicationContext context) {
		return new TestReceiveEndpoint(context.getBean(WaybillRabbitInboxAutoConfiguration.RECEIVE_ENDPOINT_BEAN_NAME,
				RabbitReceiveEndpoint.class));
	}

	/**
	 * Creates an endpoint with the default settings and the given shutdown timeout, not started.
	 * @param transport Waybill's RabbitMQ transport, whose connection settings it uses
	 * @param processor handles each delivery
	 * @param endpoints the receive endpoints to consume
	 * @param shutdownTimeout how long stopping waits for deliveries in progress
	 * @return the endpoint
	 */
	public static TestReceiveEndpoint create(Transport transport, DeliveryProcessor processor,
			List<ReceiveEndpoint> endpoints, Duration shutdownTimeout) {
		return new TestReceiveEndpoint(new RabbitReceiveEndpoint(TestRabbit.rabbit(transport), processor, endpoints,
				ReceiveEndpointSettings.DEFAULTS.withShutdownTimeout(shutdownTimeout)));
	}

	@Override
	public void start() {
		this.endpoint.start();
	}

	@Override
	public void stop() {
		this.endpoint.stop();
	}

	@Override
	public boolean isRunning() {
		return this.endpoint.isRunning();
	}

	@Override
	public void close() {
		stop();
	}

	/**
	 * Returns whether every queue has a live consumer.
	 * @return whether it consumes all its queues
	 */
	public boolean isConsuming() {
		return this.endpoint.isConsuming();
	}

	/**
	 * Returns whether {@code queue} has a live consumer.
	 * @param queue one of the endpoint's queues
	 * @return whether it consumes the queue
	 */
	public boolean isConsuming(String queue) {
		return this.endpoint.isConsuming(queue);
	}

	/**
	 * Returns why some queue has no live consumer.
	 * @return the reason, or {@literal null} while every queue is consumed
	 */
	public @Nullable String notConsumingReason() {
		return this.endpoint.notConsumingReason();
	}

	/**
	 * Returns why {@code queue} has no live consumer.
	 * @param queue one of the endpoint's queues
	 * @return the reason, or {@literal null} while it is consumed
	 */
	public @Nullable String notConsumingReason(String queue) {
		return this.endpoint.notConsumingReason(queue);
	}

	/**
	 * Returns the queues the endpoint consumes.
	 * @return the queue names
	 */
	public List<String> queues() {
		return this.endpoint.queues();
	}

	/**
	 * Returns the health of the endpoint's consumers, as the {@code consumers} health component
	 * reports it.
	 * @return the health
	 */
	public Health health() {
		return new ConsumersHealthIndicator(this.endpoint).health();
	}

	/**
	 * Returns the open channel the endpoint consumes {@code queue} on, the last one opened, for
	 * tests that close it under the endpoint.
	 * @param queue the queue
	 * @return the channel
	 */
	public Channel consumingChannel(String queue) {
		Object status = ReflectionTestUtils.getField(this.endpoint, "status");
		Collection<?> consumers = (Collection<?>) ReflectionTestUtils.getField(status, "consumers");
		return consumers.stream()
			.map(DefaultConsumer.class::cast)
			.filter((consumer) -> queue.equals(ReflectionTestUtils.getField(consumer, "queue"))
					&& consumer.getChannel().isOpen())
			.map(DefaultConsumer::getChannel)
			.reduce((first, last) -> last)
			.orElseThrow();
	}

}
