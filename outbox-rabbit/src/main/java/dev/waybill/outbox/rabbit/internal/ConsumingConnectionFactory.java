package dev.waybill.outbox.rabbit.internal;

import com.rabbitmq.client.ConnectionFactory;

/**
 * The receive endpoint's connection settings: the transport's, without the client's automatic
 * recovery, since the endpoint recovers itself, declaring its topology again (the client would
 * replay declarations on the short-lived channels they were made on, which are closed by then, and
 * report each as an error). It receives bodies as large as the transport may publish (the broker's
 * limit, {@code waybill.rabbit.max-body-size}): over the client's own limit, 64 MiB by default, the
 * client drops the connection, and the broker delivers the message again on every new one. Its
 * connections hand on a message whose headers the client cannot read with those headers set aside
 * ({@link ReadableHeadersConnectionFactory}), for the same reason.
 *
 * @since 0.1
 */
final class ConsumingConnectionFactory {

	/** amqp-client's limit on inbound bodies unless told otherwise (64 MiB). */
	private static final long CLIENT_DEFAULT_MAX_INBOUND_BODY = 64L * 1024 * 1024;

	private ConsumingConnectionFactory() {
	}

	static ConnectionFactory of(ConnectionFactory transportFactory, long maxBodySize) {
		ConnectionFactory factory = ReadableHeadersConnectionFactory.copyOf(transportFactory);
		factory.setMaxInboundMessageBodySize((int) Math.min(Integer.MAX_VALUE,
				Math.max(maxBodySize, CLIENT_DEFAULT_MAX_INBOUND_BODY)));
		factory.setAutomaticRecoveryEnabled(false);
		factory.setTopologyRecoveryEnabled(false);
		factory.setExceptionHandler(new ClientExceptionHandler());
		return factory;
	}

}
