package dev.waybill.outbox.internal;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.kernel.TimeOrderedUuids;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.OutboxWriter;

/**
 * The messages published in one physical transaction. Bound to the transaction as a resource so
 * nested scopes share it, and unbound on suspend so a {@code REQUIRES_NEW} transaction gets its own.
 */
final class OutboxTransaction implements TransactionSynchronization {

	private final Object key;

	private final OutboxWriter writer;

	private final RelayWakeUp wakeUp;

	private final List<OutboxMessage> messages = new ArrayList<>();

	/** Messages that are written as scopes of their own (scheduled or expiring), by scope id. */
	private final Map<UUID, OutboxMessage> standalone = new LinkedHashMap<>();

	private boolean written;

	/** What was buffered when each savepoint of the transaction was set, to go back to on its rollback. */
	private final Map<Object, Buffered> savepoints = new IdentityHashMap<>();

	/** Whether a batched inbox wrote scopes before the commit ({@link #writeInboundNow()}). */
	private boolean wroteEarly;

	private @Nullable UUID inboundMessageId;

	private @Nullable String consumerId;

	private OutboxTransaction(Object key, OutboxWriter writer, RelayWakeUp wakeUp) {
		this.key = key;
		this.writer = writer;
		this.wakeUp = wakeUp;
	}

	/**
	 * Returns the outbox transaction of the writer in the current Spring transaction, checking
	 * that one is active and read-write.
	 * @param what names what is published, in errors
	 */
	static OutboxTransaction current(String what, OutboxWriter writer, RelayWakeUp wakeUp) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()
				|| !TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalStateException("Cannot publish '" + what + "': no transaction is active. "
					+ "Waybill writes messages in the business transaction and never sends directly; "
					+ "annotate the calling method with @Outbox (or @Transactional), or publish inside "
					+ "TransactionTemplate.execute(...). If it is annotated already, it was not called through its "
					+ "Spring proxy: a call from another method of its own class (self-invocation) or on an object "
					+ "that is not a Spring bean skips the annotation, and what that method wrote before this call "
					+ "was committed on its own, without its messages.");
		}
		if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
			throw new IllegalStateException("Cannot publish '" + what + "': the current transaction is read-only. "
					+ "Remove readOnly = true from the @Transactional that starts it, or publish from a "
					+ "read-write @Outbox method.");
		}
		writer.checkTransaction();
		Key key = new Key(writer);
		OutboxTransaction transaction = (OutboxTransaction) TransactionSynchronizationManager.getResource(key);
		if (transaction == null) {
			transaction = new OutboxTransaction(key, writer, wakeUp);
			TransactionSynchronizationManager.bindResource(key, transaction);
			TransactionSynchronizationManager.registerSynchronization(transaction);
		}
		return transaction;
	}

	/** The resource key: one outbox transaction per writer, shared by publisher and consumer outbox. */
	private record Key(OutboxWriter writer) {
	}

	/**
	 * Buffers a message.
	 * @return the id of the scope it will be written in when it stands alone (see
	 * {@link OutboxMessage#standsAlone()}), else {@literal null}
	 */
	@Nullable UUID add(OutboxMessage message) {
		if (this.written) {
			throw new IllegalStateException("Cannot publish '" + message.messageType() + "': this transaction's "
					+ "outbox was already written because the transaction is committing. Publish before commit, "
					+ "not from a beforeCommit callback or after it.");
		}
		if (message.standsAlone()) {
			UUID scopeId = TimeOrderedUuids.next();
			this.standalone.put(scopeId, message);
			return scopeId;
		}
		this.messages.add(message);
		return null;
	}

	/**
	 * Removes a scheduled message buffered in this transaction.
	 * @return whether it was buffered here
	 */
	boolean cancelBuffered(UUID scopeId) {
		return !this.written && this.standalone.remove(scopeId) != null;
	}

	void bindInbound(UUID inboundMessageId, String consumerId) {
		this.inboundMessageId = inboundMessageId;
		this.consumerId = consumerId;
	}

	/**
	 * Writes what was published since the last inbound message was bound, as that message's scope,
	 * now rather than at commit, and forgets the binding: a batched inbox runs several handlers in
	 * one transaction and writes each one's publications inside it.
	 */
	void writeInboundNow() {
		if (!this.messages.isEmpty()) {
			this.writer.write(new OutboxScope(TimeOrderedUuids.next(), List.copyOf(this.messages), this.inboundMessageId,
					this.consumerId));
			this.wroteEarly = true;
		}
		this.standalone.forEach((scopeId, message) -> this.writer
			.write(new OutboxScope(scopeId, List.of(message), this.inboundMessageId, this.consumerId)));
		this.wroteEarly |= !this.standalone.isEmpty();
		discardInbound();
	}

	/**
	 * Drops what was published since the last inbound message was bound, and the binding: its
	 * handler failed, and the transaction rolls back.
	 */
	void discardInbound() {
		this.messages.clear();
		this.standalone.clear();
		this.inboundMessageId = null;
		this.consumerId = null;
	}

	@Override
	public int getOrder() {
		// Write after other before-commit callbacks, which may still publish.
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void beforeCommit(boolean readOnly) {
		this.written = true;
		if (!this.messages.isEmpty()) {
			this.writer.write(new OutboxScope(TimeOrderedUuids.next(), this.messages, this.inboundMessageId, this.consumerId));
		}
		// Each scheduled or expiring message is a scope of its own: its not-before time holds back
		// nothing else, and it can be cancelled or expire alone.
		this.standalone.forEach((scopeId, message) -> this.writer
			.write(new OutboxScope(scopeId, List.of(message), this.inboundMessageId, this.consumerId)));
	}

	@Override
	public void afterCommit() {
		if (this.wroteEarly || !this.messages.isEmpty() || !this.standalone.isEmpty()) {
			this.wakeUp.committed();
		}
	}

	/** Notes what is buffered when a savepoint is set (a nested transaction starts). */
	@Override
	public void savepoint(Object savepoint) {
		this.savepoints.put(savepoint, new Buffered(this.messages.size(), List.copyOf(this.standalone.keySet())));
	}

	/**
	 * Drops what was published since the savepoint: a nested transaction rolled back, and its
	 * messages go with it, as its rows do. (Writes happen at commit, after every savepoint.) A
	 * savepoint this buffer does not know was set before its first message: all of them go.
	 */
	@Override
	public void savepointRollback(Object savepoint) {
		Buffered buffered = this.savepoints.getOrDefault(savepoint, new Buffered(0, List.of()));
		if (this.messages.size() > buffered.messages()) {
			this.messages.subList(buffered.messages(), this.messages.size()).clear();
		}
		this.standalone.keySet().retainAll(buffered.standaloneIds());
	}

	/** How many messages, and which standalone scopes, were buffered at a savepoint. */
	private record Buffered(int messages, List<UUID> standaloneIds) {
	}

	@Override
	public void suspend() {
		TransactionSynchronizationManager.unbindResource(this.key);
	}

	@Override
	public void resume() {
		TransactionSynchronizationManager.bindResource(this.key, this);
	}

	@Override
	public void afterCompletion(int status) {
		TransactionSynchronizationManager.unbindResourceIfPossible(this.key);
	}

}
