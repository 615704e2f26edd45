package dev.waybill.outbox.internal.relay;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.waybill.outbox.relay.DeadScopePolicy;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxStore;

/**
 * Dead-letters a scope (kept, with its error, for redrive) and, when the {@link DeadScopePolicy}
 * is {@link DeadScopePolicy#SKIP SKIP}, takes a keyed dead scope out of its key's order so the
 * key's next scope is delivered.
 */
final class DeadLetters {

	// Under the settler's category, where its other lines are.
	private static final Log logger = LogFactory.getLog(Settler.class);

	private final OutboxStore store;

	private final RelayListener listener;

	/** Wakes the relay's workers: a skipped dead scope makes its key's next claimable. */
	private final Runnable promoted;

	private volatile DeadScopePolicy deadScopePolicy = DeadScopePolicy.BLOCK;

	DeadLetters(OutboxStore store, RelayListener listener, Runnable promoted) {
		this.store = store;
		this.listener = listener;
		this.promoted = promoted;
	}

	void setDeadScopePolicy(DeadScopePolicy policy) {
		this.deadScopePolicy = policy;
	}

	/**
	 * Dead-letters the outcome's scope.
	 * @param outcome the scope's outcome
	 * @param error why it is dead
	 */
	void deadLetter(Outcome outcome, String error) {
		ClaimedScope scope = outcome.scope();
		if (outcome.written(this.store.deadLetter(scope.id(), scope.leaseOwner(), error))) {
			logger.error("Waybill outbox scope " + scope.id() + " to " + outcome.destinations() + " is dead after "
					+ scope.attempts() + " attempt(s), kept for redrive: " + error);
			this.listener.deadLettered(scope, error);
			if (this.deadScopePolicy == DeadScopePolicy.SKIP && outcome.hasOrderingKey()
					&& this.store.skip(List.of(scope.id())) > 0) {
				logger.warn("Waybill skipped dead scope " + scope.id() + " in the order of its ordering key "
						+ scope.messages().get(0).orderingKey() + " (waybill.outbox.relay.dead-scope-ordering: skip)");
				this.promoted.run();
			}
		}
	}

}
