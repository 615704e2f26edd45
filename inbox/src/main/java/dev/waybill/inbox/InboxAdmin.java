package dev.waybill.inbox;

import java.util.UUID;

/**
 * Operations on the inbox for operators. A message a consumer gave up (it went to the consumer's
 * error queue) is final: every later copy of it is acknowledged without running the handler
 * ({@link InboxOutcome#ALREADY_FAULTED}) until an operator clears the fault here, typically just
 * before moving the message from {@code <queue>_error} back to {@code <queue>}.
 * <p>
 * The inbox auto-configuration declares it as a bean. Thread-safe.
 *
 * @since 0.1
 */
public interface InboxAdmin {

	/**
	 * Clears a consumer's fault of a message, in a transaction of its own, so that its next delivery
	 * is new work again: the handler runs, with the full retry policy ({@link MessageContext#redeliveryCount()}
	 * starts at 0 again). The row's {@code last_error} is kept. A message that is not faulted for the
	 * consumer (never seen, in progress, processed) is left alone.
	 * @param messageId the message id
	 * @param consumerId the consumer id, which is the consumer's queue name
	 * @return whether a fault was cleared
	 */
	boolean clearFault(UUID messageId, String consumerId);

}
