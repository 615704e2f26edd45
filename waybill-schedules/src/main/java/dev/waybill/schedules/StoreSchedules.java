package dev.waybill.schedules;

import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The {@link Schedules} of each store: a schedule that fires in several stores
 * ({@link Schedule#inEveryStore()}) has a row in each, paused and resumed there alone.
 *
 * @since 0.1
 */
public interface StoreSchedules {

	/**
	 * Returns the schedules of a store.
	 * @param store the store's name
	 * @return its schedules; the application's {@code Schedules} for {@value WaybillStore#DEFAULT_NAME}
	 * @throws UnknownStoreException when no store of that name is registered
	 */
	Schedules of(String store);

}
