package dev.waybill.outbox.store;

import java.util.List;

import dev.waybill.outbox.OutboxAdmin;

/**
 * The {@link OutboxAdmin} of each store: what an operator does in one store (list, redrive,
 * delete dead scopes) reads and changes that store's rows only, and its audit lines name it.
 *
 * @since 0.1
 */
public interface StoreAdmins {

	/**
	 * Returns the names of the registered stores, the default first.
	 * @return the names
	 */
	List<String> names();

	/**
	 * Returns the outbox admin of a store.
	 * @param store the store's name
	 * @return its admin; the application's {@code OutboxAdmin} for {@value WaybillStore#DEFAULT_NAME}
	 * @throws UnknownStoreException when no store of that name is registered
	 */
	OutboxAdmin outbox(String store);

}
