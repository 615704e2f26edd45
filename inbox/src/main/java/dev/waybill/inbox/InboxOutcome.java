package dev.waybill.inbox;

import dev.waybill.inbox.internal.InboxProcessor;

/**
 * What {@link InboxProcessor#process(ConsumerRegistration, InboundMessage)} did with a delivery.
 * Every outcome has been committed to the database and means "acknowledge the delivery now": a
 * retry or a fault travels on as a new message through the outbox, never as a broker requeue.
 *
 * @since 0.1
 */
public enum InboxOutcome {

	/** The handler ran and its work committed with the processed inbox row. */
	PROCESSED,

	/** This consumer had processed the message already; the handler was not called. */
	DUPLICATE,

	/** The handler failed; a redelivery to the consumer's queue is scheduled with backoff. */
	RETRY_SCHEDULED,

	/**
	 * The message went to the consumer's error queue: the handler failed on its last attempt, or the
	 * message could never be handled (no valid id, another type, an unreadable body), or the database
	 * refused, more than once and not for an outage, to record its delivery (the reason is in
	 * {@link InboxHeaders#FAULT_REASON}).
	 */
	FAULTED,

	/**
	 * This consumer had given the message up already (an earlier copy went to the error queue) and no
	 * operator has cleared the fault since (see {@link InboxAdmin#clearFault}): the handler was not
	 * called and nothing was forwarded again. A faulted message is final, like a processed one; this
	 * is a copy of it, e.g. published again by a relay whose lease ran out, or redelivered by the
	 * broker.
	 */
	ALREADY_FAULTED

}
