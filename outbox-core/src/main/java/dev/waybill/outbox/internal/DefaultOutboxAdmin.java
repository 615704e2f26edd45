package dev.waybill.outbox.internal;

import java.util.Collection;
import java.util.Objects;
import java.util.UUID;

import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * {@link OutboxAdmin} over an {@link OutboxStore}. A redrive wakes this process's relay at once;
 * the store's notification wakes the others.
 *
 * @since 0.1
 */
public final class DefaultOutboxAdmin implements OutboxAdmin {

	private final OutboxStore store;

	private final RelayWakeUp wakeUp;

	/**
	 * Creates an admin.
	 * @param store the store
	 * @param wakeUp the wake-up of this process's relay
	 */
	public DefaultOutboxAdmin(OutboxStore store, RelayWakeUp wakeUp) {
		this.store = Objects.requireNonNull(store, "store must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
	}

	@Override
	public int redrive(Collection<UUID> scopeIds) {
		return wakeIfAny(this.store.redrive(scopeIds));
	}

	@Override
	public int redriveDestination(String destination) {
		return wakeIfAny(this.store.redriveDestination(destination));
	}

	@Override
	public int redriveAll() {
		return wakeIfAny(this.store.redriveAll());
	}

	@Override
	public int skip(Collection<UUID> scopeIds) {
		return wakeIfAny(this.store.skip(scopeIds));
	}

	private int wakeIfAny(int redriven) {
		if (redriven > 0) {
			this.wakeUp.signal(); // the store has notified other instances
		}
		return redriven;
	}

	@Override
	public OutboxStats stats() {
		return this.store.stats();
	}

}
