package dev.waybill.inbox;

/**
 * Handles the messages of one type that arrive on a consumer's queue. Declare it as a Spring bean
 * (the inbox auto-configuration finds it and names its queue, see {@link Consumer @Consumer}) or
 * register it by hand with {@link ConsumerRegistration#of(String, Class, MessageHandler)}.
 * <p>
 * {@link #handle(Object, MessageContext)} runs inside the inbox transaction: the business rows it
 * writes through the application's transaction manager (JDBC or JPA), the inbox row that marks the
 * message processed and the messages it publishes through {@link MessageContext} commit together,
 * or not at all. It runs once per message id and consumer in effect: a duplicate delivery of a
 * processed message is acknowledged without calling it. Throwing rolls everything back and retries
 * the message later, with backoff, up to {@code waybill.inbox.retry.max-attempts} deliveries; then
 * the message goes to the consumer's error queue.
 * <p>
 * The class must name its message type, {@code class ChargeCard implements
 * MessageHandler<OrderPlaced>}, so the inbox knows what to read the body into: a lambda or a raw
 * {@code MessageHandler} fails start-up. One instance handles messages on several threads at once.
 *
 * @param <T> the message type
 * @since 0.1
 */
@FunctionalInterface
public interface MessageHandler<T> {

	/**
	 * Handles one message.
	 * @param message the message read from the body, never {@literal null}
	 * @param context the envelope and the consumer outbox of this delivery, valid until this method
	 * returns
	 * @throws Exception to fail this delivery: the transaction rolls back and the message is retried
	 * or, after the last attempt, moved to the error queue with the exception in its headers
	 */
	void handle(T message, MessageContext context) throws Exception;

}
