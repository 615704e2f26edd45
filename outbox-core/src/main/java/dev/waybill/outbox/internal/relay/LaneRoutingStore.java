package dev.waybill.outbox.internal.relay;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.kernel.DatabaseFailures;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.KeysInFlight;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * The relay's store over its lanes: each write about a claimed scope goes to the store of the
 * lane its lease owner names; claims, the backlog figures and redrives are the default store's
 * (the workers claim from each lane's own store). A write to another store that fails because its
 * database is unavailable makes that store wait for its database ({@link StoreRecovery}), and the
 * writes to it fail at once from then on, without waiting for its pool: the settler, the lease
 * renewer and the sweep, which serve every store, go on with the others' scopes, and keep the
 * unavailable store's outcomes for a retry once it answers.
 */
final class LaneRoutingStore implements OutboxStore {

	private static final Log logger = LogFactory.getLog(Relay.class);

	private final RelayLanes lanes;

	LaneRoutingStore(RelayLanes lanes) {
		this.lanes = lanes;
	}

	private OutboxStore defaultStore() {
		return this.lanes.defaultLane().store();
	}

	/** Writes about a claimed scope, in the store of its lease owner's lane. */
	private <T> T write(String leaseOwner, Function<OutboxStore, T> write) {
		RelayLane lane = this.lanes.laneOf(leaseOwner);
		if (lane.awaitsRecovery()) {
			throw new StoreUnavailableException(lane.name());
		}
		try {
			return write.apply(lane.store());
		}
		catch (RuntimeException ex) {
			if (!lane.isDefault() && DatabaseFailures.unavailable(ex, DatabaseFailures.ConnectionState.UNKNOWN)) {
				this.lanes.failed(lane, ex);
			}
			throw ex;
		}
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit) {
		return defaultStore().claim(leaseOwner, lease, limit);
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn) {
		return defaultStore().claim(leaseOwner, lease, limit, commitOn);
	}

	@Override
	public List<ClaimedScope> claim(String leaseOwner, Duration lease, int limit, Executor commitOn,
			KeysInFlight inFlight) {
		return defaultStore().claim(leaseOwner, lease, limit, commitOn, inFlight);
	}

	@Override
	public int renew(String leaseOwner, Collection<UUID> scopeIds, Duration lease) {
		return write(leaseOwner, (store) -> store.renew(leaseOwner, scopeIds, lease));
	}

	@Override
	public int markPublished(String leaseOwner, Collection<UUID> scopeIds) {
		return write(leaseOwner, (store) -> store.markPublished(leaseOwner, scopeIds));
	}

	@Override
	public boolean retryLater(UUID scopeId, String leaseOwner, String error, Duration retryDelay) {
		return write(leaseOwner, (store) -> store.retryLater(scopeId, leaseOwner, error, retryDelay));
	}

	@Override
	public boolean deadLetter(UUID scopeId, String leaseOwner, String error) {
		return write(leaseOwner, (store) -> store.deadLetter(scopeId, leaseOwner, error));
	}

	@Override
	public int expire(String leaseOwner, Collection<UUID> scopeIds) {
		return write(leaseOwner, (store) -> store.expire(leaseOwner, scopeIds));
	}

	@Override
	public int release(String leaseOwner, Collection<UUID> scopeIds, Duration delay) {
		return write(leaseOwner, (store) -> store.release(leaseOwner, scopeIds, delay));
	}

	@Override
	public int redrive(Collection<UUID> scopeIds) {
		return defaultStore().redrive(scopeIds);
	}

	@Override
	public int redriveDestination(String destination) {
		return defaultStore().redriveDestination(destination);
	}

	@Override
	public int redriveAll() {
		return defaultStore().redriveAll();
	}

	@Override
	public OutboxStats stats() {
		return defaultStore().stats();
	}

	/**
	 * Skips the scopes in whichever store has them: scope ids are unique across stores. A store
	 * that waits for its database is left out.
	 */
	@Override
	public int skip(Collection<UUID> scopeIds) {
		int skipped = 0;
		for (RelayLane lane : this.lanes.all()) {
			if (lane.awaitsRecovery()) {
				continue;
			}
			skipped += lane.store().skip(scopeIds);
			if (skipped == scopeIds.size()) {
				break;
			}
		}
		return skipped;
	}

	/**
	 * Promotes held heads in the default store and in each other store whose sweep is due (see
	 * {@link RelayLane#sweepDue()}); one that fails, or waits for its database, is tried again at
	 * its next sweep.
	 */
	@Override
	public int promoteHeldHeads() {
		int promoted = 0;
		for (RelayLane lane : this.lanes.all()) {
			if (!lane.isDefault() && (lane.awaitsRecovery() || !lane.sweepDue())) {
				continue;
			}
			try {
				promoted += lane.store().promoteHeldHeads();
			}
			catch (RuntimeException ex) {
				if (lane.isDefault()) {
					throw ex;
				}
				logger.debug("Waybill relay could not promote held ordering heads of store '" + lane.name() + "': " + ex);
			}
		}
		return promoted;
	}

}
