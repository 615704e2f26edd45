package dev.waybill.inbox.internal;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.UnexpectedRollbackException;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.inbox.spi.InboxDelivery;
import dev.waybill.kernel.DatabaseFailures;
import dev.waybill.kernel.TransactionConnection;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.spi.ConsumerOutbox;

/**
 * Runs the deliveries of a batch in its open transaction, which the caller commits or rolls back.
 *
 * @since 0.1
 */
final class BatchRun {

	private final InboxStore store;

	private final OutboxPublisher publisher;

	private final ConsumerOutbox consumerOutbox;

	private final PoisonCheck poison;

	private final InboxSettings settings;

	private final InboxListeners listeners;

	BatchRun(InboxResources resources, PoisonCheck poison, InboxSettings settings, InboxListeners listeners) {
		this.store = resources.store();
		this.publisher = resources.publisher();
		this.consumerOutbox = resources.consumerOutbox();
		this.poison = poison;
		this.settings = settings;
		this.listeners = listeners;
	}

	/**
	 * Runs the batch's deliveries in the open transaction. Every delivery up to the first poison one
	 * is recorded, and its message marked processed, by one statement
	 * ({@link InboxStore#receive(List)}): the commit makes the marks true. Messages processed or
	 * faulted before only have their receipts counted. Then the handlers run, one after another. A
	 * later copy of a message in the batch is answered in memory, from its first copy's outcome.
	 * When a delivery cannot be handled in the batch the run stops there, and the caller rolls the
	 * transaction back.
	 * @param carried the deliveries of a rolled-back batch that run again, by index
	 * @return where and why the batch stopped early, or {@literal null} when every delivery ran
	 * @throws BatchUnavailable when the database is unavailable
	 */
	@Nullable BatchStop run(List<InboxDelivery> deliveries, int first, List<BatchEntry> entries,
			Map<Integer, BatchEntry> carried, TransactionStatus status, TransactionConnection connection) {
		List<Object> payloads = new ArrayList<>();
		List<InboxStore.Key> keys = new ArrayList<>();
		Map<InboxStore.Key, Integer> receipts = new LinkedHashMap<>();
		for (int i = first; i < deliveries.size(); i++) {
			InboxDelivery delivery = deliveries.get(i);
			Object payload = this.poison.payloadInBatch(delivery.consumer(), delivery.message());
			if (payload == null) {
				// Poison: faulted alone, by process(), after what precedes it committed.
				break;
			}
			InboxStore.Key key = key(delivery);
			payloads.add(payload);
			keys.add(key);
			receipts.merge(key, 1, Integer::sum);
		}
		int end = first + payloads.size();
		if (payloads.isEmpty()) {
			return new BatchStop(null, null);
		}
		Map<InboxStore.Key, InboxStore.BatchReceipt> marked = statement(
				() -> this.store.receive(received(receipts, receipts.keySet())), connection);
		Map<InboxStore.Key, InboxStore.Receipt> earlier = statement(() -> this.store.countReceipts(received(receipts,
				receipts.keySet().stream().filter((key) -> !marked.containsKey(key)).toList())), connection);
		Map<InboxStore.Key, BatchEntry> firstCopies = new HashMap<>();
		for (int i = first; i < end; i++) {
			InboxDelivery delivery = deliveries.get(i);
			InboxStore.Key key = keys.get(i - first);
			BatchEntry entry = BatchEntry.of(i, delivery.consumer(), delivery.message(), key.messageId(),
					payloads.get(i - first), carried.remove(i), this.settings.observation(), this.listeners);
			BatchEntry firstCopy = firstCopies.putIfAbsent(key, entry);
			if (firstCopy != null) {
				entry.outcome = (firstCopy.outcome == InboxOutcome.ALREADY_FAULTED) ? InboxOutcome.ALREADY_FAULTED
						: InboxOutcome.DUPLICATE;
				entries.add(entry);
				continue;
			}
			InboxStore.BatchReceipt receipt = marked.get(key);
			if (receipt == null) {
				entry.outcome = earlier.get(key).processed() ? InboxOutcome.DUPLICATE : InboxOutcome.ALREADY_FAULTED;
				entries.add(entry);
				continue;
			}
			BatchStop stop;
			try {
				stop = entry.observation.run(() -> runEntry(entry, receipt.attempts(), status, connection));
			}
			catch (RuntimeException | Error ex) {
				entry.notCommitted((ex instanceof BatchUnavailable unavailable) ? unavailable.failure
						: new IllegalStateException(ex));
				throw ex;
			}
			if (stop != null) {
				this.consumerOutbox.discardInbound();
				return new BatchStop(entry, stop.handlerFailure());
			}
			entries.add(entry);
		}
		return (end < deliveries.size()) ? new BatchStop(null, null) : null;
	}

	/**
	 * Runs one delivery of a batch.
	 * @param attempts its failed deliveries recorded before
	 * @return why it cannot be handled in the batch, or {@literal null} when its outcome is set
	 * @throws BatchUnavailable when the database is unavailable
	 */
	private <T> @Nullable BatchStop runEntry(BatchEntry entry, int attempts, TransactionStatus status,
			TransactionConnection connection) {
		@SuppressWarnings("unchecked")
		ConsumerRegistration<T> consumer = (ConsumerRegistration<T>) entry.consumer;
		String consumerId = consumer.consumerId();
		this.consumerOutbox.bindInbound(entry.id, consumerId);
		MessageContext context = new HandlerContext(entry.id, consumer.messageType(), entry.message, consumerId,
				attempts, 0, this.publisher);
		try {
			@SuppressWarnings("unchecked")
			T payload = (T) entry.payload;
			consumer.handler().handle(payload, context);
		}
		catch (Exception | Error ex) {
			if (DeliveryFault.fatal(ex)) {
				throw (Error) ex;
			}
			// A connection lost under the handler is no fault of the message.
			if (DatabaseFailures.unavailable(ex, connection.check())) {
				throw new BatchUnavailable(ex);
			}
			return new BatchStop(entry, ex);
		}
		if (status.isRollbackOnly()) {
			// as the commit of a transaction of its own would have thrown
			return new BatchStop(entry, new UnexpectedRollbackException(
					"Transaction silently rolled back because it has been marked as rollback-only"));
		}
		if (transactionAborted()) {
			// A statement of the handler failed and it caught the exception. Unbatched, the inbox mark
			// after the handler tells; here the next statement may be the next handler's (which would
			// take the blame) or the commit (which PostgreSQL turns into a silent rollback of the
			// whole batch, its deliveries then acknowledged as processed).
			return new BatchStop(entry, new IllegalStateException(DeliveryFault.ABORTED_BY_HANDLER));
		}
		try {
			// marked processed with the others of the batch, before the commit
			this.consumerOutbox.writeInboundNow();
		}
		catch (RuntimeException ex) {
			return recordingFailed(ex, connection);
		}
		entry.outcome = InboxOutcome.PROCESSED;
		return null;
	}

	private static List<InboxStore.Received> received(Map<InboxStore.Key, Integer> receipts,
			Collection<InboxStore.Key> keys) {
		List<InboxStore.Received> received = new ArrayList<>(keys.size());
		for (InboxStore.Key key : keys) {
			received.add(new InboxStore.Received(key, receipts.get(key)));
		}
		return received;
	}

	private static InboxStore.Key key(InboxDelivery delivery) {
		return new InboxStore.Key(Objects.requireNonNull(PoisonCheck.canonicalUuid(delivery.message().messageId())),
				delivery.consumer().consumerId());
	}

	/**
	 * Runs one of the batch's own statements.
	 * @throws BatchUnavailable when the database is unavailable; any other failure fails the batch
	 */
	private static <R> R statement(Supplier<R> statement, TransactionConnection connection) {
		try {
			return statement.get();
		}
		catch (RuntimeException ex) {
			if (DatabaseFailures.unavailableToRecord(ex, connection.check())) {
				throw new BatchUnavailable(ex);
			}
			throw ex;
		}
	}

	/**
	 * Whether the current transaction's connection is in a failed transaction (a statement failed,
	 * PostgreSQL refuses every later one), as the driver knows it without a round trip.
	 */
	private boolean transactionAborted() {
		Connection connection = DataSourceUtils.getConnection(this.store.dataSource());
		try {
			return DatabaseFailures.transactionAborted(connection);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.store.dataSource());
		}
	}

	private static BatchStop recordingFailed(RuntimeException failure, TransactionConnection connection) {
		if (DatabaseFailures.unavailableToRecord(failure, connection.check())) {
			throw new BatchUnavailable(failure);
		}
		return new BatchStop(null, null);
	}

}
