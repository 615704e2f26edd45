package dev.waybill.outbox.rabbit;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ShutdownSignalException;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;
import dev.waybill.outbox.spi.TransportException.Kind;

/**
 * One publishing channel in confirm mode. Publishes are tracked by sequence number until the
 * broker confirms them; a message the broker returns as unroutable ({@code mandatory}) fails
 * whatever its confirm says. At most {@code maxOutstandingConfirms} publishes wait for confirms;
 * each holds one permit of the window from publish until its future completes.
 * <p>
 * Futures complete on the RabbitMQ client's connection thread (confirms, returns, connection
 * loss), on the transport's timeout thread, or on the publishing thread: dependent stages must not
 * block.
 */
final class RabbitTransportChannel implements TransportChannel {

	private final Channel channel;

	private final RabbitTransport transport;

	private final long confirmTimeoutNanos;

	private final Semaphore window;

	private final ConcurrentNavigableMap<Long, PendingPublish> pending = new ConcurrentSkipListMap<>();

	private final Map<String, PendingPublish> pendingByMessageId = new ConcurrentHashMap<>();

	private final Object publishLock = new Object();

	private final AtomicReference<@Nullable String> closedReason = new AtomicReference<>();

	RabbitTransportChannel(Channel channel, RabbitTransport transport) {
		this.channel = channel;
		this.transport = transport;
		this.confirmTimeoutNanos = transport.confirmTimeout().toNanos();
		this.window = new Semaphore(transport.maxOutstandingConfirms());
		this.channel.addReturnListener(this::returned);
		this.channel.addConfirmListener((seqNo, multiple) -> confirmed(seqNo, multiple, true),
				(seqNo, multiple) -> confirmed(seqNo, multiple, false));
		this.channel.addShutdownListener(this::shutDown);
	}

	@Override
	public CompletableFuture<Void> publish(OutboxMessage message) {
		Objects.requireNonNull(message, "message must not be null");
		String closed = this.closedReason.get();
		if (closed != null) {
			return failed(Kind.UNAVAILABLE, "The channel is closed: " + closed);
		}
		String problem = AmqpMessages.problem(message, this.transport.maxBodySize());
		if (problem != null) {
			return failed(Kind.PERMANENT, "Message " + message.messageId() + " cannot be published: " + problem);
		}
		try {
			this.transport.topology()
				.ensure(message.destination(), message.messageType(), this.transport::createChannel);
		}
		catch (TransportException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		try {
			this.window.acquire();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return failed(Kind.UNAVAILABLE, "Interrupted while waiting for room in the window of unconfirmed messages");
		}
		return send(message);
	}

	private CompletableFuture<Void> send(OutboxMessage message) {
		PendingPublish publish;
		long seqNo;
		synchronized (this.publishLock) {
			seqNo = this.channel.getNextPublishSeqNo();
			publish = new PendingPublish(message.messageId().toString(), message.destination(),
					System.nanoTime() + this.confirmTimeoutNanos);
			this.pending.put(seqNo, publish);
			this.pendingByMessageId.put(publish.messageId, publish);
			try {
				this.channel.basicPublish(message.destination(), message.routingKey(), true,
						AmqpMessages.properties(message), message.body());
			}
			catch (IOException | RuntimeException ex) {
				settle(seqNo, publish, RabbitTransport.unavailable("Could not publish message " + publish.messageId, ex));
				return publish.future;
			}
		}
		String closed = this.closedReason.get();
		if (closed != null) { // closed while publishing: shutDown may have drained before the put
			settle(seqNo, publish, new TransportException(Kind.UNAVAILABLE, "The channel is closed: " + closed));
		}
		return publish.future;
	}

	@Override
	public boolean isOpen() {
		return this.closedReason.get() == null && this.channel.isOpen();
	}

	@Override
	public void close() {
		if (markClosed("closed by the application")) {
			failAll("The channel was closed with the message unconfirmed");
			this.transport.discard(this, null);
			RabbitTransport.abortQuietly(this.channel);
		}
	}

	/**
	 * Fails the publishes whose confirm is overdue. Deadlines grow with sequence numbers, so the
	 * scan stops at the first that is not overdue.
	 * @param now the current {@link System#nanoTime()}
	 */
	void expireOverdue(long now) {
		for (Map.Entry<Long, PendingPublish> entry : this.pending.entrySet()) {
			PendingPublish publish = entry.getValue();
			if (now - publish.deadline < 0) {
				return;
			}
			String reason = (publish.returned != null) ? publish.returned
					: "No publisher confirm for message " + publish.messageId + " within "
							+ this.transport.confirmTimeout().toMillis() + "ms";
			settle(entry.getKey(), publish, new TransportException(Kind.MESSAGE, reason));
		}
	}

	/**
	 * Returns the free places in the window of unconfirmed messages.
	 */
	int availableWindow() {
		return this.window.availablePermits();
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
			settle(seqNo, publish,
					new TransportException(Kind.MESSAGE, "The broker nacked message " + publish.messageId));
		}
	}

	private void shutDown(ShutdownSignalException cause) {
		if (!markClosed(BrokerErrors.describe(cause))) {
			return;
		}
		if (!cause.isHardError()) {
			// The broker closed the channel, e.g. 404 for an exchange deleted since it was checked.
			this.transport.topology().forget();
		}
		String reason = "The channel closed before the broker confirmed the message: " + this.closedReason.get();
		String refused = BrokerErrors.accessRefused(cause) ? BrokerErrors.refusedExchange(cause) : null;
		for (Map.Entry<Long, PendingPublish> entry : this.pending.entrySet()) {
			PendingPublish publish = entry.getValue();
			settle(entry.getKey(), publish, publish.destination.equals(refused) ? this.transport.writeRefused(refused, cause)
					: new TransportException(Kind.UNAVAILABLE, reason));
		}
		this.transport.discard(this, cause.isInitiatedByApplication() ? null : this.channel);
	}

	private boolean markClosed(String reason) {
		return this.closedReason.compareAndSet(null, reason);
	}

	private void failAll(String reason) {
		for (Map.Entry<Long, PendingPublish> entry : this.pending.entrySet()) {
			settle(entry.getKey(), entry.getValue(), new TransportException(Kind.UNAVAILABLE, reason));
		}
	}

	/**
	 * Completes a publish once: whoever removes it from the map completes its future and releases
	 * its permit.
	 */
	private void settle(long seqNo, PendingPublish publish, @Nullable TransportException failure) {
		if (!this.pending.remove(seqNo, publish)) {
			return;
		}
		this.pendingByMessageId.remove(publish.messageId, publish);
		this.window.release();
		if (failure == null) {
			publish.future.complete(null);
		}
		else {
			publish.future.completeExceptionally(failure);
		}
	}

	private static CompletableFuture<Void> failed(Kind kind, String message) {
		return CompletableFuture.failedFuture(new TransportException(kind, message));
	}

	@Override
	public String toString() {
		return "RabbitTransportChannel[" + this.channel.getChannelNumber() + " on " + this.transport + "]";
	}

	/**
	 * A publish waiting for its confirm.
	 */
	private static final class PendingPublish {

		final CompletableFuture<Void> future = new CompletableFuture<>();

		final String messageId;

		final String destination;

		final long deadline;

		volatile @Nullable String returned;

		PendingPublish(String messageId, String destination, long deadline) {
			this.messageId = messageId;
			this.destination = destination;
			this.deadline = deadline;
		}

	}

}
