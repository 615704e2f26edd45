package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.MessageTypes;
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
 * A publish the client refuses locally (a content header larger than the negotiated
 * {@code frame_max}, a string AMQP cannot encode) fails that message alone, as
 * {@link Kind#PERMANENT}. The client has already advanced the channel's publish sequence number
 * for it, though nothing reached the broker, so the broker's confirms would no longer match: the
 * AMQP channel is retired (it keeps settling the publishes sent before, whose numbers are still
 * right, and is closed once they are settled) and later publishes go out on a fresh one.
 * <p>
 * Futures complete on the RabbitMQ client's connection thread (confirms, returns, connection
 * loss), on the transport's timeout thread, or on the publishing thread: dependent stages must not
 * block.
 *
 * @since 0.1
 */
final class RabbitTransportChannel implements TransportChannel {

	private static final Log logger = LogFactory.getLog(RabbitTransportChannel.class);

	private final RabbitTransport transport;

	private final long confirmTimeoutNanos;

	private final Semaphore window;

	private final Object publishLock = new Object();

	private final AtomicReference<@Nullable String> closedReason = new AtomicReference<>();

	/** The AMQP channel new publishes go to. */
	private volatile ConfirmLane lane;

	/** AMQP channels retired after a local publish failure, still settling earlier publishes. */
	private final Set<ConfirmLane> retired = ConcurrentHashMap.newKeySet();

	RabbitTransportChannel(Channel channel, RabbitTransport transport) {
		this.transport = transport;
		this.confirmTimeoutNanos = transport.confirmTimeout().toNanos();
		this.window = new Semaphore(transport.maxOutstandingConfirms());
		this.lane = new ConfirmLane(channel, this);
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
				.ensure(message.destination(), message.messageType(), supertypes(message), this.transport::createChannel);
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

	private static @Nullable String supertypes(OutboxMessage message) {
		Object value = message.headers().get(MessageTypes.SUPERTYPES_HEADER);
		return (value instanceof String text) ? text : null;
	}

	private CompletableFuture<Void> send(OutboxMessage message) {
		PendingPublish publish;
		long seqNo;
		ConfirmLane lane;
		synchronized (this.publishLock) {
			try {
				lane = currentLane();
			}
			catch (TransportException ex) {
				this.window.release();
				return CompletableFuture.failedFuture(ex);
			}
			seqNo = lane.channel.getNextPublishSeqNo();
			publish = new PendingPublish(message.messageId().toString(), message.destination(),
					System.nanoTime() + this.confirmTimeoutNanos);
			lane.pending.put(seqNo, publish);
			lane.pendingByMessageId.put(publish.messageId, publish);
			try {
				lane.channel.basicPublish(message.destination(), message.routingKey(), true,
						AmqpMessages.properties(message), message.body());
			}
			catch (IOException | RuntimeException ex) {
				lane.settle(seqNo, publish, notSent(publish, ex));
				if (lane.channel.getNextPublishSeqNo() != seqNo) {
					// The client counted a publish the broker never saw: confirms would shift by one.
					retire(lane, ex);
				}
				return publish.future;
			}
		}
		String closed = this.closedReason.get();
		if (closed != null) { // closed while publishing: shutDown may have drained before the put
			lane.settle(seqNo, publish, new TransportException(Kind.UNAVAILABLE, "The channel is closed: " + closed));
		}
		return publish.future;
	}

	/**
	 * Classifies a publish the client could not send: the channel's or connection's failure, or
	 * the message's when the client refuses to encode it.
	 */
	private static TransportException notSent(PendingPublish publish, Exception ex) {
		if (ex instanceof IOException || BrokerErrors.signal(ex) != null) {
			return RabbitTransport.unavailable("Could not publish message " + publish.messageId, ex);
		}
		if (ex instanceof IllegalArgumentException) {
			return new TransportException(Kind.PERMANENT, "Message " + publish.messageId
					+ " cannot be published: the RabbitMQ client refused it: " + ex.getMessage()
					+ (String.valueOf(ex.getMessage()).contains("frame size")
							? " (the headers must fit in one frame of the broker's frame_max, " + RabbitTransport.FRAME_MAX_PROPERTY + ")"
							: ""),
					ex);
		}
		return new TransportException(Kind.MESSAGE,
				"Could not publish message " + publish.messageId + ": " + BrokerErrors.describe(ex), ex);
	}

	/**
	 * Stops publishing on an AMQP channel: it settles what it sent, then closes; the next publish
	 * opens a fresh one. Called holding the publish lock.
	 */
	private void retire(ConfirmLane old, Exception cause) {
		old.retired = true;
		this.retired.add(old);
		logger.info("Waybill stops publishing on channel " + old.channel.getChannelNumber()
				+ " after the RabbitMQ client refused a message (" + BrokerErrors.describe(cause)
				+ "), so that publisher confirms keep matching their messages; the next message goes on a new channel");
		old.abortIfDrained();
	}

	/**
	 * Returns the lane to publish on, opening a fresh AMQP channel when the last one was retired.
	 * Called holding the publish lock.
	 */
	private ConfirmLane currentLane() throws TransportException {
		ConfirmLane lane = this.lane;
		if (!lane.retired) {
			return lane;
		}
		try {
			lane = new ConfirmLane(this.transport.createConfirmingChannel(), this);
		}
		catch (TransportException ex) {
			// The relay replaces the whole channel once the broker is back.
			shutDown("could not open a channel to replace a retired one: " + ex.getMessage(), null, null);
			throw ex;
		}
		this.lane = lane;
		if (this.closedReason.get() != null) {
			lane.abort();
		}
		return lane;
	}

	@Override
	public boolean isOpen() {
		ConfirmLane lane = this.lane;
		return this.closedReason.get() == null && (lane.retired || lane.channel.isOpen());
	}

	@Override
	public void close() {
		if (markClosed("closed by the application")) {
			failAll("The channel was closed with the message unconfirmed");
			this.transport.discard(this, null);
			this.lane.abort();
			this.retired.forEach(ConfirmLane::abort);
		}
	}

	/**
	 * Fails the publishes whose confirm is overdue.
	 * @param now the current {@link System#nanoTime()}
	 */
	void expireOverdue(long now) {
		this.lane.expireOverdue(now);
		for (ConfirmLane old : this.retired) {
			old.expireOverdue(now);
		}
	}

	/**
	 * Returns the free places in the window of unconfirmed messages.
	 */
	int availableWindow() {
		return this.window.availablePermits();
	}

	/**
	 * Returns the number of the AMQP channel new publishes go to.
	 */
	int channelNumber() {
		return this.lane.channel.getChannelNumber();
	}

	RabbitTransport transport() {
		return this.transport;
	}

	void releasePermit() {
		this.window.release();
	}

	void forgetRetired(ConfirmLane lane) {
		this.retired.remove(lane);
	}

	/**
	 * Closes this channel for good: its lane's AMQP channel closed, or stopped answering.
	 */
	void shutDown(String reason, @Nullable ShutdownSignalException cause, @Nullable ConfirmLane lane) {
		if (!markClosed(reason)) {
			return;
		}
		if (cause != null && !cause.isHardError()) {
			// The broker closed the channel, e.g. 404 for an exchange deleted since it was checked.
			this.transport.topology().forget();
		}
		String refused = (cause != null && BrokerErrors.accessRefused(cause)) ? BrokerErrors.refusedExchange(cause) : null;
		failAll("The channel closed before the broker confirmed the message: " + reason, refused, cause);
		this.transport.discard(this,
				(lane == null || cause == null || cause.isInitiatedByApplication()) ? null : lane.channel);
		this.retired.forEach(ConfirmLane::abort);
	}

	private boolean markClosed(String reason) {
		return this.closedReason.compareAndSet(null, reason);
	}

	private void failAll(String reason) {
		failAll(reason, null, null);
	}

	/**
	 * Fails every unconfirmed publish as unavailable, except those to {@code refusedExchange}, which
	 * the broker refused for want of write permission (a failure of those messages).
	 */
	private void failAll(String reason, @Nullable String refusedExchange, @Nullable ShutdownSignalException cause) {
		this.lane.failAll(reason, refusedExchange, cause);
		for (ConfirmLane old : this.retired) {
			old.failAll(reason, refusedExchange, cause);
		}
	}

	private static CompletableFuture<Void> failed(Kind kind, String message) {
		return CompletableFuture.failedFuture(new TransportException(kind, message));
	}

	@Override
	public String toString() {
		return "RabbitTransportChannel[" + this.lane.channel.getChannelNumber() + " on " + this.transport + "]";
	}

}
