package dev.waybill.outbox.internal;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.kernel.DatabaseFailures;
import dev.waybill.kernel.DirectDispatchRecord;
import dev.waybill.outbox.spi.OutboxScope;

/**
 * The scopes one transaction wrote leased to this process's relay ({@link DirectDispatcher}),
 * handed to it after the commit and forgotten after a rollback; bound to the transaction as a
 * resource, and unbound on suspend so a {@code REQUIRES_NEW} transaction has its own. It also
 * notes whether the transaction wrote any other scope, since only those need a relay woken.
 *
 * @since 0.1
 */
public final class DirectScopes implements TransactionSynchronization, DirectDispatchRecord {

	private static final Object KEY = DirectDispatchRecord.RESOURCE_KEY;

	private final Map<DirectDispatcher, List<DirectDispatcher.Lease>> leases = new LinkedHashMap<>();

	private boolean otherScopesWritten;

	private boolean handedOver;

	/** The connections the scopes were written on (one per transaction, as a rule). */
	private final Set<Connection> connections = Collections.newSetFromMap(new IdentityHashMap<>());

	/** How many scopes each dispatcher had leased when each savepoint was set. */
	private final Map<Object, Map<DirectDispatcher, Integer>> savepoints = new IdentityHashMap<>();

	private DirectScopes() {
	}

	/**
	 * Notes what the current transaction is about to write, and leases its scope without an
	 * ordering key to the dispatcher when it can take it.
	 * @param dispatcher this process's relay
	 * @param candidate the scope that may be leased, or {@literal null} when none may
	 * @param othersWritten whether the write holds other scopes too (these are claimed)
	 * @return the lease to write {@code candidate} with, or {@literal null} (no transaction
	 * synchronization, no candidate, or the relay cannot take it)
	 */
	public static DirectDispatcher.@Nullable Lease reserve(DirectDispatcher dispatcher, @Nullable OutboxScope candidate,
			boolean othersWritten, Connection connection) {
		DirectScopes scopes = current();
		if (scopes == null) {
			return null;
		}
		scopes.connections.add(connection);
		DirectDispatcher.Lease lease = (candidate != null) ? dispatcher.reserve(candidate) : null;
		scopes.otherScopesWritten |= othersWritten || lease == null;
		if (lease != null) {
			scopes.leases.computeIfAbsent(dispatcher, (key) -> new ArrayList<>()).add(lease);
		}
		return lease;
	}

	@Override
	public boolean everyScopeDispatchedDirectly() {
		return !this.otherScopesWritten && !this.leases.isEmpty();
	}

	private static @Nullable DirectScopes current() {
		if (!TransactionSynchronizationManager.isSynchronizationActive()
				|| !TransactionSynchronizationManager.isActualTransactionActive()) {
			return null;
		}
		DirectScopes scopes = (DirectScopes) TransactionSynchronizationManager.getResource(KEY);
		if (scopes == null) {
			scopes = new DirectScopes();
			TransactionSynchronizationManager.bindResource(KEY, scopes);
			TransactionSynchronizationManager.registerSynchronization(scopes);
		}
		return scopes;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	/**
	 * Forgets every lease when the transaction cannot commit any more: PostgreSQL aborted it (a
	 * statement after the outbox's write failed and the caller went on), so its COMMIT will roll
	 * back, yet the driver reports no error and the commit callbacks run as after a commit. The
	 * driver knows the state from the protocol, without a round trip.
	 */
	@Override
	public void beforeCompletion() {
		for (Connection connection : this.connections) {
			if (DatabaseFailures.transactionAborted(connection)) {
				this.leases.forEach(DirectDispatcher::abandoned);
				this.leases.clear();
				return;
			}
		}
	}

	@Override
	public void afterCommit() {
		this.handedOver = true;
		this.leases.forEach(DirectDispatcher::committed);
	}

	@Override
	public void afterCompletion(int status) {
		TransactionSynchronizationManager.unbindResourceIfPossible(KEY);
		if (!this.handedOver) {
			if (status == STATUS_UNKNOWN) {
				// The commit's answer was lost: the scopes may be committed, leased to the relay.
				this.leases.forEach(DirectDispatcher::outcomeUnknown);
			}
			else {
				this.leases.forEach(DirectDispatcher::abandoned);
			}
		}
	}

	/** Notes how many scopes were leased when a savepoint is set. */
	@Override
	public void savepoint(Object savepoint) {
		Map<DirectDispatcher, Integer> marks = new LinkedHashMap<>();
		this.leases.forEach((dispatcher, leased) -> marks.put(dispatcher, leased.size()));
		this.savepoints.put(savepoint, marks);
	}

	/**
	 * Forgets the scopes leased since the savepoint: the rollback to it removed their rows. A
	 * savepoint set before this transaction's first lease is one none of them survives.
	 */
	@Override
	public void savepointRollback(Object savepoint) {
		Map<DirectDispatcher, Integer> marks = this.savepoints.getOrDefault(savepoint, Map.of());
		this.leases.forEach((dispatcher, leased) -> {
			int kept = marks.getOrDefault(dispatcher, 0);
			if (leased.size() > kept) {
				List<DirectDispatcher.Lease> undone = leased.subList(kept, leased.size());
				dispatcher.abandoned(List.copyOf(undone));
				undone.clear();
			}
		});
	}

	@Override
	public void suspend() {
		TransactionSynchronizationManager.unbindResource(KEY);
	}

	@Override
	public void resume() {
		TransactionSynchronizationManager.bindResource(KEY, this);
	}

}
