package dev.waybill.outbox.rabbit;

/**
 * Names of the AMQP headers and properties Waybill sets besides the standard ones, for consumers
 * that read them.
 *
 * @since 0.1
 */
public final class RabbitHeaders {

	/** Header that carries the message's conversation id, when it has one. */
	public static final String CONVERSATION_ID = "waybill-conversation-id";

	/** Header that carries the name of the host that published the message, when known. */
	public static final String SOURCE_HOST = "waybill-source-host";

	/** The AMQP {@code app-id} property of every message Waybill publishes. */
	public static final String APP_ID = "waybill";

	private RabbitHeaders() {
	}

}
