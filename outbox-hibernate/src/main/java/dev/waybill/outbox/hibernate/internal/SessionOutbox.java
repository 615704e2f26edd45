package dev.waybill.outbox.hibernate.internal;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.engine.spi.TransactionCompletionCallbacks;
import org.springframework.transaction.support.TransactionSynchronization;

import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.spi.ConnectionOutboxWriter;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;

/**
 * What one session's transaction puts in the outbox: entity events in flush order, then the
 * messages {@code OutboxPublisher} buffered, in publish order. Written once: the entity events with
 * the first scope written to it (the publisher writes one), every further scope as it came (the
 * inbox writes an error queue copy and its fault event, or a batch's deliveries, as scopes of their
 * own), plus one scope for each scheduled or expiring message.
 * <p>
 * Registered as a synchronization of the session's Spring transaction, it drops the events
 * flushed in a nested transaction that rolls back to its savepoint. (Published messages reach it
 * only at commit, after the publisher's own buffer dropped theirs.)
 */
final class SessionOutbox implements TransactionSynchronization {

	interface BeforeCompletion extends TransactionCompletionCallbacks.BeforeCompletionCallback {
	}

	interface AfterCompletion extends TransactionCompletionCallbacks.AfterCompletionCallback {
	}

	private final ConnectionOutboxWriter store;

	private final List<OutboxMessage> events = new ArrayList<>();

	/**
	 * The scopes written to this outbox, each kept as its own: the inbox writes a fault's error
	 * queue copy and its fault event as two scopes (an unroutable event must not hold back the
	 * copy), and a batched inbox one scope per delivery, each tied to its inbound message.
	 */
	private final List<OutboxScope> published = new ArrayList<>();

	/** How many events were collected when each savepoint was set. */
	private final Map<Object, Integer> savepoints = new IdentityHashMap<>();

	/** Scopes of one scheduled or expiring message, written as they are (see OutboxMessage#standsAlone). */
	private final List<OutboxScope> standalone = new ArrayList<>();

	private boolean written;

	private boolean wroteMessages;

	/** Set when the session's transaction completed, committed or rolled back. */
	private boolean completed;

	SessionOutbox(ConnectionOutboxWriter store) {
		this.store = store;
	}

	void requireOpen(String entity) {
		if (this.written) {
			throw new IllegalStateException("Entity " + entity + " has outbox events but is flushed after this "
					+ "transaction's outbox was written (the transaction is completing). Register events before "
					+ "the transaction commits, not from a completion callback.");
		}
	}

	void add(OutboxMessage event) {
		this.events.add(event);
	}

	void add(OutboxScope scope) {
		if (this.written) {
			throw new IllegalStateException("Cannot add " + scope.messages().size() + " published message(s): this "
					+ "transaction's outbox was already written");
		}
		if (scope.messages().size() == 1 && scope.messages().get(0).standsAlone()) {
			this.standalone.add(scope);
			return;
		}
		this.published.add(scope);
	}

	@Override
	public void savepoint(Object savepoint) {
		this.savepoints.put(savepoint, this.events.size());
	}

	/**
	 * Drops the events collected since the savepoint. A savepoint this outbox does not know was set
	 * before its first event: all of them go.
	 */
	@Override
	public void savepointRollback(Object savepoint) {
		this.events.subList(this.savepoints.getOrDefault(savepoint, 0), this.events.size()).clear();
	}

	boolean wroteMessages() {
		return this.wroteMessages;
	}

	/**
	 * Marks the transaction of this outbox completed. Hibernate runs before-completion callbacks
	 * only on commit and keeps them otherwise: after a rollback this outbox's callback stays
	 * queued on a session that outlives the transaction (an open-session-in-view
	 * {@code EntityManager} bound across several transactions) and would run at that session's
	 * next commit, writing the events of the rolled-back transaction with it.
	 */
	void completed() {
		this.completed = true;
	}

	/** Runs after the session's last flush before commit, still inside the transaction. */
	void write(SharedSessionContractImplementor session) {
		if (this.completed) {
			return; // the callback of an earlier transaction of this session that rolled back
		}
		this.written = true;
		for (OutboxScope scope : this.standalone) {
			session.doWork((connection) -> this.store.write(connection, scope));
			this.wroteMessages = true;
		}
		// The entity events go with the first scope written here (in one statement with it, as the
		// transaction's publisher writes one scope); each further scope is written as it came.
		List<OutboxScope> scopes = new ArrayList<>();
		if (this.published.isEmpty()) {
			if (!this.events.isEmpty()) {
				scopes.add(new OutboxScope(TimeOrderedUuids.next(), this.events, null, null));
			}
		}
		else {
			OutboxScope first = this.published.get(0);
			List<OutboxMessage> messages = new ArrayList<>(this.events);
			messages.addAll(first.messages());
			scopes.add(new OutboxScope(first.id(), messages, first.inboundMessageId(), first.consumerId()));
			scopes.addAll(this.published.subList(1, this.published.size()));
		}
		for (OutboxScope scope : scopes) {
			session.doWork((connection) -> this.store.write(connection, scope));
			this.wroteMessages = true;
		}
	}

}
