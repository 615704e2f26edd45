package dev.waybill.inbox.autoconfigure;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Checks at start-up that the transaction manager the inbox runs deliveries under manages the
 * DataSource of Waybill's tables. Otherwise a handler's work, its inbox row and its messages could
 * not commit together: every delivery would fail to be recorded and go to the error queue, and
 * every {@code @Outbox} call would throw, while the application started without a word.
 */
final class InboxTransactionCheck {

	private static final Log logger = LogFactory.getLog(InboxTransactionCheck.class);

	private InboxTransactionCheck() {
	}

	/**
	 * Begins and commits an empty transaction to see whether it binds {@code dataSource}, as the
	 * inbox's writes require. Only a resource transaction manager (JDBC, JPA, Hibernate) binds its
	 * resource when it begins; others (JTA) are not checked, nor is any when no transaction can begin
	 * now (the database is away: the relay and consumers wait for it).
	 * @throws IllegalStateException when the transaction does not manage {@code dataSource}
	 */
	static void check(PlatformTransactionManager transactionManager, DataSource dataSource) {
		if (!(transactionManager instanceof ResourceTransactionManager)) {
			return;
		}
		Boolean manages;
		try {
			manages = new TransactionTemplate(transactionManager)
				.execute((status) -> TransactionSynchronizationManager.hasResource(dataSource));
		}
		catch (RuntimeException ex) {
			logger.debug("Waybill could not check the inbox's transaction manager at start-up: " + ex);
			return;
		}
		if (Boolean.FALSE.equals(manages)) {
			throw new IllegalStateException("Waybill's inbox runs each delivery in a transaction of the application's "
					+ "PlatformTransactionManager (" + transactionManager.getClass().getName() + ", managing "
					+ ((ResourceTransactionManager) transactionManager).getResourceFactory() + "), but that "
					+ "transaction does not manage the DataSource of Waybill's tables, so a handler's work, its inbox "
					+ "row and its messages could not commit together. Make the transaction manager of Waybill's "
					+ "DataSource the primary one (@Primary), or give Waybill the DataSource that manager manages.");
		}
	}

}
