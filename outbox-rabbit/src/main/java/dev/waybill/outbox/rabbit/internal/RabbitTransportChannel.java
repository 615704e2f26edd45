package dev.waybill.outbox.rabbit.internal;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Return;
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
 */
final class RabbitTransportChannel implements TransportChannel {

	private static final Log logger = LogFactory.getLog(RabbitTransportChannel.class);

	private final RabbitTransport transport;

	private final long confirmTimeoutNanos;

	private final Semaphore window;

	private final Object publishLock = new Object();

	private final AtomicReference<@Nullable String> closedReason = new AtomicReference<>();

	/** The AMQP channel new publishes go to. */
	private volatile Lane lane;

	/** AMQP channels retired after a local publish failure, still settling earlier publishes. */
	private final Set<Lane> retired = ConcurrentHashMap.newKeySet();

	RabbitTransportChannel(Channel channel, RabbitTransport transport) {
		this.transport = transport;
		this.confirmTimeoutNanos = transport.confirmTimeout().toNanos();
		this.window = new Semaphore(transport.maxOutstandingConfirms());
		this.lane = new Lane(channel);
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
		Lane lane;
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
	private void retire(Lane old, Exception cause) {
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
	private Lane currentLane() throws TransportException {
		Lane lane = this.lane;
		if (!lane.retired) {
			return lane;
		}
		try {
			lane = new Lane(this.transport.createConfirmingChannel());
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
		Lane lane = this.lane;
		return this.closedReason.get() == null && (lane.retired || lane.channel.isOpen());
	}

	@Override
	public void close() {
		if (markClosed("closed by the application")) {
			failAll("The channel was closed with the message unconfirmed");
			this.transport.discard(this, null);
			this.lane.abort();
			this.retired.forEach(Lane::abort);
		}
	}

	/**
	 * Fails the publishes whose confirm is overdue.
	 * @param now the current {@link System#nanoTime()}
	 */
	void expireOverdue(long now) {
		this.lane.expireOverdue(now);
		for (Lane old : this.retired) {
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

	private void shutDown(String reason, @Nullable ShutdownSignalException cause, @Nullable Lane lane) {
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
		this.retired.forEach(Lane::abort);
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
		for (Lane old : this.retired) {
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

	/**
	 * One AMQP channel in confirm mode and the publishes sent on it, keyed by its sequence numbers.
	 */
	private final class Lane {

		final Channel channel;

		final ConcurrentNavigableMap<Long, PendingPublish> pending = new ConcurrentSkipListMap<>();

		final Map<String, PendingPublish> pendingByMessageId = new ConcurrentHashMap<>();

		volatile boolean retired;

		/** The highest sequence number the broker acked or nacked on this channel. */
		private volatile long highestAnswered;

		private final AtomicBoolean aborted = new AtomicBoolean();

		Lane(Channel channel) {
			this.channel = channel;
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
			long timeout = RabbitTransportChannel.this.transport.confirmTimeout().toMillis();
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
					RabbitTransportChannel.this.shutDown(silent(timeout), null, this);
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
				RabbitTransportChannel.this.retired.remove(this);
				abort(); // so that the connection's recovery does not bring it back
			}
			else {
				RabbitTransportChannel.this.shutDown(BrokerErrors.describe(cause), cause, this);
			}
		}

		void failAll(String reason, @Nullable String refusedExchange, @Nullable ShutdownSignalException cause) {
			for (Map.Entry<Long, PendingPublish> entry : this.pending.entrySet()) {
				PendingPublish publish = entry.getValue();
				settle(entry.getKey(), publish, (refusedExchange != null && publish.destination.equals(refusedExchange))
						? RabbitTransportChannel.this.transport.writeRefused(refusedExchange, cause)
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
			RabbitTransportChannel.this.window.release();
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
				RabbitTransportChannel.this.retired.remove(this);
				abort();
			}
		}

		/**
		 * Aborts the AMQP channel off the caller's thread, which may be the connection's.
		 */
		void abort() {
			if (this.aborted.compareAndSet(false, true)) {
				RabbitTransportChannel.this.transport.abortLater(this.channel);
			}
		}

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
