package dev.waybill.inbox.internal;

import java.util.Objects;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.InboxAdmin;
import dev.waybill.inbox.internal.jdbc.InboxStore;

/**
 * The {@link InboxAdmin} over the inbox table: each change in a transaction of its own. Thread-safe.
 */
public final class JdbcInboxAdmin implements InboxAdmin {

	// Operators filter on the API's name, not on this implementation's.
	private static final Log logger = LogFactory.getLog(InboxAdmin.class);

	private final TransactionTemplate transaction;

	private final InboxStore store;

	/**
	 * Creates the admin.
	 * @param transactionManager the transaction manager of the store's DataSource
	 * @param store the inbox table
	 */
	public JdbcInboxAdmin(PlatformTransactionManager transactionManager, InboxStore store) {
		this.transaction = new TransactionTemplate(
				Objects.requireNonNull(transactionManager, "transactionManager must not be null"));
		this.transaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.store = Objects.requireNonNull(store, "store must not be null");
	}

	@Override
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
