package dev.waybill.inbox;

import java.util.List;
import java.util.UUID;

/**
 * Looks a message id up across every consumer of this database's inbox: who processed it, who gave
 * it up, when, after how many attempts. A bean in services that have consumers.
 *
 * @since 0.1
 */
public interface InboxLookup {

	/**
	 * Returns what each consumer did with a message.
	 * @param messageId the message id
	 * @return one entry per consumer that received it, by consumer id; empty when none did (or its
	 * rows were purged)
	 */
	List<InboxEntry> find(UUID messageId);

}
