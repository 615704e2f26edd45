package dev.waybill.outbox.internal.relay;

import dev.waybill.outbox.store.WaybillStore;

/**
 * How a lease owner names the store its scopes were claimed from: the default store's owners as
 * the relay makes them, another store's with {@code @<store>} at the end (a store name has no
 * {@code @}). What settles a scope, and what counts it, finds its store so.
 *
 * @since 0.1
 */
public final class LeaseOwners {

	private static final char SEPARATOR = '@';

	private LeaseOwners() {
	}

	/**
	 * Returns the owner of a claim from a store.
	 * @param owner the relay's owner of the claim
	 * @param store the store's name
	 * @return the owner to claim with
	 */
	static String ofStore(String owner, String store) {
		return WaybillStore.DEFAULT_NAME.equals(store) ? owner : owner + SEPARATOR + store;
	}

	/**
	 * Returns the store a lease owner's scopes were claimed from.
	 * @param leaseOwner the lease owner
	 * @return the store's name, {@value WaybillStore#DEFAULT_NAME} for an owner without one
	 */
	public static String storeOf(String leaseOwner) {
		int separator = leaseOwner.lastIndexOf(SEPARATOR);
		return (separator < 0) ? WaybillStore.DEFAULT_NAME : leaseOwner.substring(separator + 1);
	}

	/**
	 * Whether a name can name a store in a lease owner.
	 * @param store the name
	 * @return whether it has no separator
	 */
	static boolean canName(String store) {
		return store.indexOf(SEPARATOR) < 0;
	}

}
