package dev.waybill.inbox.internal;

import java.util.List;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.EndpointRetry;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxAdmin;
import dev.waybill.inbox.InboxHeaders;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.spi.DeliveryResult;
import dev.waybill.inbox.spi.InboxDelivery;
import dev.waybill.inbox.spi.UnrecordableDeliveryException;
import dev.waybill.outbox.RetryPolicy;

/**
 * Handles one delivery for one consumer, once in effect, and tells the transport what to do with
 * it. Transport-neutral: a receive endpoint calls {@link #process(ConsumerRegistration, InboundMessage)}
 * for every delivery and acknowledges it when the call returns, whatever the {@link InboxOutcome}.
 * When the call throws {@link UnrecordableDeliveryException} the endpoint moves the delivery to the
 * error queue itself; when it throws anything else the database is unavailable, nothing was
 * recorded, and the endpoint rejects the delivery with requeue.
 * <p>
 * In order:
 * <ol>
 * <li>A message that can never be handled goes to the consumer's error queue at once
 * ({@link InboxOutcome#FAULTED}): no message id or one that is not a UUID (no inbox row is
 * written), a type other than the consumer's, a body the serializer cannot read into the
 * consumer's payload class (its inbox row is marked faulted).</li>
 * <li>In one transaction of the application's transaction manager (so JPA handlers share it) the
 * inbox row is inserted or, for a redelivery, counted and locked; a message the consumer processed
 * already is {@link InboxOutcome#DUPLICATE}, one it gave up already is
 * {@link InboxOutcome#ALREADY_FAULTED}, and the handler is not called. Otherwise the handler runs,
 * its publications are tied to the inbound message (the consumer outbox), the row is marked
 * processed and everything commits together: {@link InboxOutcome#PROCESSED}. A concurrent delivery
 * of the same message waits on the row lock and then finds it processed or faulted.</li>
 * <li>A handler that throws rolls all of that back. When the exception, or one in its cause chain,
 * is one the consumer {@linkplain ConsumerRegistration#ignore() ignores}, one new transaction marks
 * the inbox row processed with the exception as its note ({@link InboxOutcome#PROCESSED}); when it
 * is one the consumer {@linkplain ConsumerRegistration#neverRetry() never retries}, the message goes
 * to the error queue at once. Otherwise it is retried in process, each time in a fresh
 * transaction, {@code immediateRetries} times (the consumer's {@link EndpointRetry} when it has
 * one, else the processor's); then one new transaction records the failed attempt
 * and its error on the inbox row and writes, through the outbox, either a redelivery of the
 * unchanged message to the consumer's queue after the {@link RetryPolicy} backoff
 * ({@link InboxOutcome#RETRY_SCHEDULED}), or, at the policy's maximum attempts, a copy to the
 * error queue with the exception in its headers ({@link InboxHeaders}), marking the row faulted
 * ({@link InboxOutcome#FAULTED}).</li>
 * </ol>
 * A row is processed or faulted, never both, and either is final: a faulted message is not handled
 * or forwarded again until an operator clears the fault ({@link InboxAdmin#clearFault}). The inbox
 * row's failed attempts are {@link MessageContext#redeliveryCount()}.
 * <p>
 * Failures are classified once ({@code DatabaseFailures}): when the handler, the commit or the
 * rollback fails because the database connection was lost (by the whole cause chain, and by asking
 * the transaction's connection whether it is still valid), nothing is recorded and no attempt is
 * counted; the call throws and the delivery is retried. So too when Waybill's own statements are
 * refused because the database takes no writes at all (a read-only standby, or
 * {@code default_transaction_read_only}). When they fail for another reason (the database refuses
 * the inbox row or the fault), they are tried three times;
 * then the message goes to the error queue through the outbox alone with the reason in
 * {@link InboxHeaders#FAULT_REASON}, or, when the database refuses that too,
 * {@link UnrecordableDeliveryException} hands it to the transport. Nothing is requeued forever
 * except during an outage.
 * <p>
 * Thread-safe; one instance serves every consumer.
 *
 * @since 0.1
 */
public final class InboxProcessor implements DeliveryProcessor {

	private volatile @Nullable StoreDeliveries stores;

	private final PoisonCheck poison;

	private final SingleDelivery single;

	private final BatchProcessor batches;

	private final InboxStore store;

	private final InboxListeners listeners;

	/**
	 * Creates a processor.
	 * @param resources the database, the outbox and the serializer it works with
	 * @param settings how it handles deliveries
	 */
	public InboxProcessor(InboxResources resources, InboxSettings settings) {
		Objects.requireNonNull(resources, "resources must not be null");
		Objects.requireNonNull(settings, "settings must not be null");
		InboxListeners listeners = new InboxListeners(settings.listener());
		this.listeners = listeners;
		Recording recording = new Recording(resources.transactionManager());
		this.store = resources.store();
		this.poison = new PoisonCheck(resources.serializer());
		this.single = new SingleDelivery(settings, listeners, this.poison, new HandlerTransaction(recording, resources),
				new FailureRecorder(recording, resources, settings, listeners));
		this.batches = new BatchProcessor(resources, recording, new BatchRun(resources, this.poison, settings, listeners),
				this.single);
	}

	/**
	 * Handles one delivery; see the class description.
	 * @param consumer the consumer of the queue the message arrived on
	 * @param message the delivery
	 * @return what was committed; acknowledge the delivery
	 * @throws UnrecordableDeliveryException when the database refuses to record anything about the
	 * delivery (move it to the error queue with the exception's reason, then acknowledge it)
	 * @throws org.springframework.dao.DataAccessException or another runtime exception when the
	 * database is unavailable (nothing was recorded; reject the delivery with requeue)
	 */
	@Override
	public InboxOutcome process(ConsumerRegistration<?> consumer, InboundMessage message) {
		Objects.requireNonNull(consumer, "consumer must not be null");
		Objects.requireNonNull(message, "message must not be null");
		StoreDeliveries stores = this.stores;
		if (stores != null) {
			return stores.process(consumer, message, this.single::process);
		}
		return this.single.process(consumer, message);
	}

	/**
	 * Hands deliveries of other stores to their inboxes; without it, every delivery is this
	 * inbox's, whatever store it names.
	 * @param stores the other stores' inboxes
	 * @since 0.1
	 */
	public void setStores(@Nullable StoreDeliveries stores) {
		this.stores = stores;
	}

	/**
	 * Handles several deliveries, in order, in as few transactions as it can: one transaction
	 * records every delivery and marks its message processed in one statement, runs the handlers
	 * one after another, and commits once (the commit makes the marks true). A later copy of a
	 * message in the batch takes its first copy's outcome ({@link InboxOutcome#DUPLICATE} when that
	 * processed it) in memory; its receipt is counted by the recording statement. Poison ends the
	 * batch there: what precedes it commits and it is faulted alone. A delivery whose handler throws
	 * (or whose own inbox statement is refused) rolls the whole batch back, with no savepoints: the
	 * deliveries before it are handled again (their handlers run a second time; the first run left
	 * nothing), then it alone, exactly as {@link #process} does (its handler's failed attempt counts
	 * as the first), and the deliveries after it start the next batch. So deliveries of one ordering
	 * key stay in order, and a failing handler's failure is recorded for its own message only. When
	 * the database is unavailable nothing of the uncommitted batch is recorded: that delivery and
	 * every one after it fail with the outage.
	 * When the database refuses the marks or the commit for another reason, nothing of the batch is
	 * recorded either; batching pauses for a while and its deliveries are handled alone.
	 * <p>
	 * Batches only with a JDBC transaction manager ({@link DataSourceTransactionManager}) and the
	 * default consumer outbox; otherwise, and for a single delivery, each delivery is handled by
	 * {@link #process}.
	 * @param deliveries the deliveries, in the order they were received
	 * @return what happened to each, at the same index
	 * @since 0.1
	 */
	@Override
	public List<DeliveryResult> processBatch(List<InboxDelivery> deliveries) {
		Objects.requireNonNull(deliveries, "deliveries must not be null");
		StoreDeliveries stores = this.stores;
		return (stores != null) ? stores.processBatch(deliveries, this.batches::processBatch)
				: this.batches.processBatch(deliveries);
	}

	/**
	 * Tells why {@link #processBatch} handles each delivery in a transaction of its own, if it
	 * does: batches need a JDBC transaction manager and the default consumer outbox.
	 * @return the reason, or {@code null} when deliveries are batched
	 * @since 0.1
	 */
	@Override
	public @Nullable String whyNotBatched() {
		return this.batches.whyNotBatched();
	}

	/**
	 * Tells whether a consumer received a message before: its inbox has the message's row.
	 * @param consumer the consumer
	 * @param messageId the message id; an id that is not a UUID was never recorded
	 * @return whether the consumer has a row of the message
	 * @since 0.1
	 */
	@Override
	public boolean received(ConsumerRegistration<?> consumer, String messageId) {
		Objects.requireNonNull(consumer, "consumer must not be null");
		Objects.requireNonNull(messageId, "messageId must not be null");
		UUID id;
		try {
			id = UUID.fromString(messageId);
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
		if (this.store.received(id, consumer.consumerId())) {
			return true;
		}
		StoreDeliveries stores = this.stores;
		return stores != null && stores.received(consumer, messageId);
	}

	/**
	 * Tells the listeners that a keyed delivery is handled without its predecessor.
	 * @param consumer the consumer
	 * @param message the delivery
	 * @param previous the message id of its missing predecessor
	 * @since 0.1
	 */
	@Override
	public void predecessorMissing(ConsumerRegistration<?> consumer, InboundMessage message, String previous) {
		this.listeners.predecessorMissing(consumer, message, previous);
	}

	/**
	 * Tells the processor which message types the consumers of each queue handle, so that a fault
	 * for a type none of them handles names them all (without it, the fault names the type of the
	 * consumer the delivery fell back to). The receive endpoint calls it with its consumers.
	 * @param consumers the consumers by queue
	 * @since 0.1
	 */
	@Override
	public void describeQueues(ConsumerRegistry consumers) {
		this.poison.describeQueues(consumers);
	}

}
