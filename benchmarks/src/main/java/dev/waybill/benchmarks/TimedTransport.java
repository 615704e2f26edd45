package dev.waybill.benchmarks;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;

/**
 * A {@link Transport} that notes, for each message the relay publishes, when it called the
 * channel's {@code publish} and when that call returned (the message written to the broker's
 * socket), so the latency benchmark can split claim return to confirm into the relay's hand-over,
 * the publish call and the broker's confirm. Everything else is forwarded.
 */
final class TimedTransport implements Transport {

	private final Transport delegate;

	private final Map<UUID, Instant> publishCalled = new ConcurrentHashMap<>();

	private final Map<UUID, Instant> publishReturned = new ConcurrentHashMap<>();

	TimedTransport(Transport delegate) {
		this.delegate = delegate;
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
	public TransportChannel openChannel() throws TransportException {
		TransportChannel channel = this.delegate.openChannel();
		return new TransportChannel() {

			@Override
			public CompletableFuture<Void> publish(OutboxMessage message) {
				TimedTransport.this.publishCalled.put(message.messageId(), Instant.now());
				CompletableFuture<Void> confirm = channel.publish(message);
				TimedTransport.this.publishReturned.put(message.messageId(), Instant.now());
				return confirm;
			}

			@Override
			public boolean isOpen() {
				return channel.isOpen();
			}

			@Override
			public void close() {
				channel.close();
			}

		};
	}

	@Override
	public long maxHeaderBytes() {
		return this.delegate.maxHeaderBytes();
	}

	@Override
	public void probe() throws TransportException {
		this.delegate.probe();
	}

	@Override
	public void close() {
		this.delegate.close();
	}

}
