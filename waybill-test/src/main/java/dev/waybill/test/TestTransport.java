package dev.waybill.test;

/**
 * The transport of a test, {@code waybill.test.transport}.
 *
 * @since 0.1
 */
public enum TestTransport {

	/** The application's own transport: RabbitMQ with outbox-rabbit. */
	BROKER,

	/**
	 * The {@link InMemoryTransport}: no broker, the relay hands messages to the application's own
	 * handlers through the real inbox and database ({@code waybill.test.transport=in-memory}).
	 */
	IN_MEMORY

}
