package dev.waybill.outbox.rabbit.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ShutdownSignalException;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.spi.TransportException;
import dev.waybill.outbox.spi.TransportException.Kind;

/**
 * One AMQP channel in confirm mode of a {@link RabbitTransportChannel} and the publishes sent on it,
 * keyed by its sequence numbers.
 *
 * @since 0.1
 */
final class ConfirmLane {

	final Channel channel;

	final ConcurrentNavigableMap<Long, PendingPublish> pending = new ConcurrentSkipListMap<>();

	final Map<String, PendingPublish> pendingByMessageId = new ConcurrentHashMap<>();

	volatile boolean retired;

	/** The highest sequence number the broker acked or nacked on this channel. */
	private volatile long highestAnswered;

	private final AtomicBoolean aborted = new AtomicBoolean();

	private final RabbitTransportChannel owner;

	ConfirmLane(Channel channel, RabbitTransportChannel owner) {
		this.channel = channel;
		this.owner = owner;
		channel.addReturnListener(this::returned);
		channel.addConfirmListener((seqNo, multiple) -> confirmed(seqNo, multiple, true),
				(seqNo, multiple) -> confirmed(seqNo, multiple, false));
		channel.addShutdownListener(this::shutDown);
	}

	/**
	 * Fails the publishes whose confirm is overdue (deadlines grow with sequence numbers, so the
	 * scan stops at the first that is not). When the broker confirmed a later publish
	 * of this channel meanwhile, it is answering, and the silence is about this message (its
	 * queue cannot take it now): a failed attempt. When it confirmed nothing since, it is not
	 * answering at all (stopped, cut off without the connection noticing yet, or blocking
	 * publishers on a memory or disk alarm): the broker is unavailable, which costs no attempt,
	 * and the channel is closed so that the relay opens another and, failing, opens its circuit.
	 */
	void expireOverdue(long now) {
		long timeout = this.owner.transport().confirmTimeout().toMillis();
		for (Map.Entry<Long, PendingPublish> entry : this.pending.entrySet()) {
			PendingPublish publish = entry.getValue();
			if (now - publish.deadline < 0) {
				return;
			}
			if (publish.returned != null) {
				settle(entry.getKey(), publish, new TransportException(Kind.MESSAGE, publish.returned));
			}
			else if (this.highestAnswered > entry.getKey()) {
				settle(entry.getKey(), publish, new TransportException(Kind.MESSAGE, "No publisher confirm for message "
						+ publish.messageId + " within " + timeout + "ms, though later messages were confirmed"));
			}
			else if (this.retired) {
				settle(entry.getKey(), publish, new TransportException(Kind.UNAVAILABLE, silent(timeout)));
			}
			else {
				this.owner.shutDown(silent(timeout), null, this);
				abort();
				return;
			}
		}
	}

	private String silent(long timeout) {
		return "RabbitMQ confirmed nothing on channel " + this.channel.getChannelNumber() + " within " + timeout
				+ "ms: the broker is not answering (stopped, unreachable, or blocking publishers on a memory or "
				+ "disk alarm)";
	}

	private void returned(Return returned) {
		String messageId = returned.getProperties().getMessageId();
		PendingPublish publish = (messageId != null) ? this.pendingByMessageId.get(messageId) : null;
		if (publish != null) {
			publish.returned = "unroutable: no queue bound to exchange '" + returned.getExchange()
					+ "' with routing key '" + returned.getRoutingKey() + "'";
		}
	}

	private void confirmed(long seqNo, boolean multiple, boolean ack) {
		if (seqNo > this.highestAnswered) {
			this.highestAnswered = seqNo; // confirms arrive on the connection's one thread
		}
		if (multiple) {
			for (Map.Entry<Long, PendingPublish> entry : this.pending.headMap(seqNo, true).entrySet()) {
				confirmed(entry.getKey(), entry.getValue(), ack);
			}
		}
		else {
			PendingPublish publish = this.pending.get(seqNo);
			if (publish != null) {
				confirmed(seqNo, publish, ack);
			}
		}
	}

	private void confirmed(long seqNo, PendingPublish publish, boolean ack) {
		// RabbitMQ acks a returned message, Qpid nacks it: returned means unroutable either way.
		if (publish.returned != null) {
			settle(seqNo, publish, new TransportException(Kind.MESSAGE, publish.returned));
		}
		else if (ack) {
			settle(seqNo, publish, null);
		}
		else {
			settle(seqNo, publish, new TransportException(Kind.MESSAGE, "The broker nacked message " + publish.messageId
					+ " (RabbitMQ gives no reason: a queue it routes to may be full with overflow reject-publish, "
					+ "or unable to take it, e.g. a classic queue whose node is down or a quorum queue without a majority)"));
		}
	}

	private void shutDown(ShutdownSignalException cause) {
		if (this.retired) {
			failAll("The retired channel closed before the broker confirmed the message: "
					+ BrokerErrors.describe(cause), BrokerErrors.accessRefused(cause) ? BrokerErrors.refusedExchange(cause) : null,
					cause);
			this.owner.forgetRetired(this);
			abort(); // so that the connection's recovery does not bring it back
		}
		else {
			this.owner.shutDown(BrokerErrors.describe(cause), cause, this);
		}
	}

	void failAll(String reason, @Nullable String refusedExchange, @Nullable ShutdownSignalException cause) {
		for (Map.Entry<Long, PendingPublish> entry : this.pending.entrySet()) {
			PendingPublish publish = entry.getValue();
			settle(entry.getKey(), publish, (refusedExchange != null && publish.destination.equals(refusedExchange))
					? this.owner.transport().writeRefused(refusedExchange, cause)
					: new TransportException(Kind.UNAVAILABLE, reason));
		}
	}

	/**
	 * Completes a publish once: whoever removes it from the map completes its future and
	 * releases its permit.
	 */
	void settle(long seqNo, PendingPublish publish, @Nullable TransportException failure) {
		if (!this.pending.remove(seqNo, publish)) {
			return;
		}
		this.pendingByMessageId.remove(publish.messageId, publish);
		this.owner.releasePermit();
		if (failure == null) {
			publish.future.complete(null);
		}
		else {
			publish.future.completeExceptionally(failure);
		}
		if (this.retired) {
			abortIfDrained();
		}
	}

	void abortIfDrained() {
		if (this.pending.isEmpty()) {
			this.owner.forgetRetired(this);
			abort();
		}
	}

	/**
	 * Aborts the AMQP channel off the caller's thread, which may be the connection's.
	 */
	void abort() {
		if (this.aborted.compareAndSet(false, true)) {
			this.owner.transport().abortLater(this.channel);
		}
	}

}
