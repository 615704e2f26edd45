package dev.waybill.kernel;

import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * The SLF4J MDC entries Waybill sets while it works on a message, so a log pattern can show them
 * (Logback: {@code %X{waybill.messageId}}). The relay sets {@link #SCOPE_ID}, {@link #MESSAGE_ID}
 * and {@link #MESSAGE_TYPE} while it publishes a message and while it records a scope's failure;
 * the inbox sets {@link #MESSAGE_ID}, {@link #MESSAGE_TYPE}, {@link #CONSUMER} and {@link #QUEUE}
 * around the handler and the recording of the delivery. Each entry is restored to what it was
 * before (usually absent) when Waybill is done.
 *
 * @since 0.1
 */
public final class WaybillMdc implements AutoCloseable {

	/** The message id (for the inbox, as the delivery carried it, at most 64 characters). */
	public static final String MESSAGE_ID = "waybill.messageId";

	/** The outbox scope id: the business transaction (or handled message) that published. */
	public static final String SCOPE_ID = "waybill.scopeId";

	/** The message type (for the inbox, the consumer's declared type). */
	public static final String MESSAGE_TYPE = "waybill.messageType";

	/** The consumer id of the inbox consumer handling the message. */
	public static final String CONSUMER = "waybill.consumer";

	/** The queue the inbox consumer consumes. */
	public static final String QUEUE = "waybill.queue";

	private static final int MAX_VALUE_LENGTH = 64;

	private final String[] keys;

	private final @Nullable String[] previous;

	private WaybillMdc(String[] keys, @Nullable String[] values) {
		this.keys = keys;
		this.previous = new String[keys.length];
		for (int i = 0; i < keys.length; i++) {
			this.previous[i] = MDC.get(keys[i]);
			put(keys[i], values[i]);
		}
	}

	/**
	 * Sets the entries of a message the relay works on.
	 * @param scopeId the scope id
	 * @param messageId the message id, or {@literal null}
	 * @param messageType the message type, or {@literal null}
	 * @return what restores the previous entries when closed
	 */
	public static WaybillMdc relay(Object scopeId, @Nullable Object messageId, @Nullable String messageType) {
		return new WaybillMdc(new String[] { SCOPE_ID, MESSAGE_ID, MESSAGE_TYPE },
				new String[] { scopeId.toString(), (messageId != null) ? messageId.toString() : null, messageType });
	}

	/**
	 * Sets the entries of a delivery the inbox works on.
	 * @param messageId the message id the delivery carried, or {@literal null}
	 * @param messageType the consumer's message type
	 * @param consumer the consumer id
	 * @param queue the consumer's queue
	 * @return what restores the previous entries when closed
	 */
	public static WaybillMdc inbox(@Nullable String messageId, String messageType, String consumer, String queue) {
		return new WaybillMdc(new String[] { MESSAGE_ID, MESSAGE_TYPE, CONSUMER, QUEUE },
				// an inbound id is untrusted: bounded, and no line breaks to forge log lines with
				new String[] { (messageId != null) ? shown(messageId) : null, messageType, consumer, queue });
	}

	/**
	 * Restores the entries to what they were before.
	 */
	@Override
	public void close() {
		for (int i = 0; i < this.keys.length; i++) {
			put(this.keys[i], this.previous[i]);
		}
	}

	private static void put(String key, @Nullable String value) {
		if (value == null) {
			MDC.remove(key);
		}
		else {
			MDC.put(key, value);
		}
	}

	private static String shown(String value) {
		String shown = (value.length() > MAX_VALUE_LENGTH) ? value.substring(0, MAX_VALUE_LENGTH) : value;
		return shown.replace('\n', ' ').replace('\r', ' ');
	}

}
