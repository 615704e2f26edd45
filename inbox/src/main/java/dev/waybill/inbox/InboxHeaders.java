package dev.waybill.inbox;

/**
 * Names of the headers the inbox adds to the messages it forwards: redeliveries to a consumer's
 * own queue and faulted messages in its error queue ({@code <queue>_error}). Everything else a
 * forwarded message carries (id, type, content type, body, correlation and conversation ids and
 * headers, with their types) is the inbound message's, unchanged, except that U+0000 and unpaired
 * surrogates in its type, content type and correlation and conversation ids, which PostgreSQL
 * cannot store, become U+FFFD.
 *
 * @since 0.1
 */
public final class InboxHeaders {

	/** On a redelivery: how many deliveries of the message to this consumer failed so far. */
	public static final String REDELIVERY_COUNT = "waybill-redelivery-count";

	/**
	 * On a fault that is no handler failure: why the message can never be handled (no valid message
	 * id, a type the consumer does not handle, a body that cannot be read).
	 */
	public static final String FAULT_REASON = "waybill-fault-reason";

	/** On a fault caused by an exception: its class name. */
	public static final String FAULT_EXCEPTION_TYPE = "waybill-fault-exception-type";

	/** On a fault: the exception's message, or the reason when there was no exception. */
	public static final String FAULT_MESSAGE = "waybill-fault-message";

	/** On a fault caused by an exception: its first stack frames and its root cause. */
	public static final String FAULT_STACK_TRACE = "waybill-fault-stack-trace";

	/** On a fault: the failed deliveries, the last one included. */
	public static final String FAULT_ATTEMPTS = "waybill-fault-attempts";

	/**
	 * On a redelivery and a fault: the exchange the message was first published to, so it can be
	 * sent back there; kept from the first delivery through every redelivery.
	 */
	public static final String ORIGINAL_EXCHANGE = "waybill-original-exchange";

	/** On a redelivery and a fault: the routing key the message was first published with. */
	public static final String ORIGINAL_ROUTING_KEY = "waybill-original-routing-key";

	/**
	 * On a fault of a message without a valid id: the id it arrived with. The faulted copy gets a
	 * new id, since the outbox keys messages by UUID.
	 */
	public static final String ORIGINAL_MESSAGE_ID = "waybill-original-message-id";

	/**
	 * On a fault whose copy would not fit in one AMQP frame with the headers the message arrived
	 * with: how many of them were left out and their size in bytes, as text. The copy keeps
	 * Waybill's own headers (the fault, the original exchange and routing key), its body and
	 * properties.
	 * @since 0.1
	 */
	public static final String DROPPED_HEADERS = "waybill-dropped-headers";

	/**
	 * On a message whose AMQP headers the RabbitMQ Java client cannot read (tables nested deeper
	 * than it allows, a field type it does not know, a length beyond the table): those headers,
	 * undecoded, as a byte array in place of all of them. Set by the receive endpoint, which would
	 * otherwise lose its connection to such a message again and again; the inbox sends the message
	 * to the error queue at once, these bytes with it.
	 * @since 0.1
	 */
	public static final String UNREADABLE_HEADERS = "waybill-unreadable-headers";

	/**
	 * With {@link #UNREADABLE_HEADERS}: why the headers could not be read.
	 * @since 0.1
	 */
	public static final String UNREADABLE_HEADERS_REASON = "waybill-unreadable-headers-reason";

	private InboxHeaders() {
	}

}
