package dev.waybill.inbox;

import java.util.Objects;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.internal.jdbc.InboxStore;

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
public final class InboxAdmin {

	private static final Log logger = LogFactory.getLog(InboxAdmin.class);

	private final TransactionTemplate transaction;

	private final InboxStore store;

	/**
	 * Creates the admin.
	 * @param transactionManager the transaction manager of the store's DataSource
	 * @param store the inbox table
	 */
	public InboxAdmin(PlatformTransactionManager transactionManager, InboxStore store) {
		this.transaction = new TransactionTemplate(
				Objects.requireNonNull(transactionManager, "transactionManager must not be null"));
		this.transaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.store = Objects.requireNonNull(store, "store must not be null");
	}

	/**
	 * Clears a consumer's fault of a message, in a transaction of its own, so that its next delivery
	 * is new work again: the handler runs, with the full retry policy ({@link MessageContext#redeliveryCount()}
	 * starts at 0 again). The row's {@code last_error} is kept. A message that is not faulted for the
	 * consumer (never seen, in progress, processed) is left alone.
	 * @param messageId the message id
	 * @param consumerId the consumer id, which is the consumer's queue name
	 * @return whether a fault was cleared
	 */
	public boolean clearFault(UUID messageId, String consumerId) {
		Objects.requireNonNull(messageId, "messageId must not be null");
		Objects.requireNonNull(consumerId, "consumerId must not be null");
		boolean cleared = Boolean.TRUE.equals(this.transaction.execute((status) -> this.store.clearFault(messageId, consumerId)));
		if (cleared) {
			logger.info("Cleared the fault of message " + messageId + " for consumer '" + consumerId
					+ "': its next delivery will be handled");
		}
		return cleared;
	}

}
