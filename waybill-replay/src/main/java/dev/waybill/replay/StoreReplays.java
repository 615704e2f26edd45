package dev.waybill.replay;

import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The {@link Replays} of each store: a job replays the archived and retained messages of the
 * store it is started in, into that store's outbox, and is listed, paused and cancelled there.
 *
 * @since 0.1
 */
public interface StoreReplays {

	/**
	 * Returns the replays of a store.
	 * @param store the store's name
	 * @return its replays; the application's {@code Replays} for {@value WaybillStore#DEFAULT_NAME}
	 * @throws UnknownStoreException when no store of that name is registered
	 */
	Replays of(String store);

}
