package dev.waybill.outbox;

/**
 * Thrown by {@link OutboxPublisher} when more messages wait for delivery than
 * {@code waybill.outbox.max-pending} allows: the relay is behind or the broker is unreachable,
 * and the service sheds load rather than grow the backlog without bound. Nothing is buffered
 * for the message.
 *
 * @since 0.1
 */
public class OutboxFullException extends IllegalStateException {

	private final long pendingMessages;

	private final long maxPending;

	/**
	 * Creates an exception.
	 * @param messageType the type of the refused message
	 * @param pendingMessages messages waiting, as the relay last read it
	 * @param maxPending the configured limit
	 */
	public OutboxFullException(String messageType, long pendingMessages, long maxPending) {
		super("Cannot publish '" + messageType + "': " + pendingMessages + " messages are waiting for delivery, at or "
				+ "over waybill.outbox.max-pending=" + maxPending + ". The relay is behind or the broker is "
				+ "unreachable; retry later, or raise the limit.");
		this.pendingMessages = pendingMessages;
		this.maxPending = maxPending;
	}

	/**
	 * Returns the messages waiting when the publish was refused.
	 * @return the pending message count
	 */
	public long getPendingMessages() {
		return this.pendingMessages;
	}

	/**
	 * Returns the configured limit.
	 * @return {@code waybill.outbox.max-pending}
	 */
	public long getMaxPending() {
		return this.maxPending;
	}

}
