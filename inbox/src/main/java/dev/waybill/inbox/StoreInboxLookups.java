package dev.waybill.inbox;

import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The {@link InboxLookup} of each store: a message handled in a store (its {@code waybill-store}
 * header) is recorded in that store's inbox, and looked up there.
 *
 * @since 0.1
 */
public interface StoreInboxLookups {

	/**
	 * Returns the inbox lookup of a store.
	 * @param store the store's name
	 * @return its lookup; the application's {@code InboxLookup} for {@value WaybillStore#DEFAULT_NAME}
	 * @throws UnknownStoreException when no store of that name is registered
	 */
	InboxLookup of(String store);

}
