package dev.waybill.benchmarks;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.test.ForwardingTransport;
import dev.waybill.outbox.spi.TransportChannel;

/**
 * A {@link Transport} that notes, for each message the relay publishes, when it called the
 * channel's {@code publish} and when that call returned (the message written to the broker's
 * socket), so the latency benchmark can split claim return to confirm into the relay's hand-over,
 * the publish call and the broker's confirm. Everything else is forwarded.
 */
final class TimedTransport extends ForwardingTransport {

	private final Map<UUID, Instant> publishCalled = new ConcurrentHashMap<>();

	private final Map<UUID, Instant> publishReturned = new ConcurrentHashMap<>();

	TimedTransport(Transport delegate) {
		super(delegate);
	}

	/**
	 * Returns when the relay called {@code publish} for each message, by message id.
	 * @return the live map
	 */
	Map<UUID, Instant> publishCalled() {
		return this.publishCalled;
	}

	/**
	 * Returns when each message's {@code publish} call returned, by message id.
	 * @return the live map
	 */
	Map<UUID, Instant> publishReturned() {
		return this.publishReturned;
	}

	@Override
	protected CompletableFuture<Void> publish(TransportChannel channel, OutboxMessage message) {
		this.publishCalled.put(message.messageId(), Instant.now());
		CompletableFuture<Void> confirm = channel.publish(message);
		this.publishReturned.put(message.messageId(), Instant.now());
		return confirm;
	}

}
