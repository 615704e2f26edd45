package dev.waybill.outbox.test;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;

/**
 * A {@link Transport} that forwards every call, the interface's default methods included, to
 * another transport, and whose channels forward to the other transport's channels: tests and
 * benchmarks extend it and override {@link #publish(TransportChannel, OutboxMessage)} to time,
 * fail or delay publishes.
 */
public abstract class ForwardingTransport implements Transport {

	private final Transport delegate;

	/**
	 * Creates a transport forwarding to {@code delegate}.
	 * @param delegate the transport that does the work
	 */
	protected ForwardingTransport(Transport delegate) {
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
	}

	/**
	 * Publishes one message on a channel of the other transport; forwards by default.
	 * @param channel the other transport's channel
	 * @param message the message
	 * @return the confirm
	 */
	protected CompletableFuture<Void> publish(TransportChannel channel, OutboxMessage message) {
		return channel.publish(message);
	}

	@Override
	public TransportChannel openChannel() throws TransportException {
		TransportChannel channel = this.delegate.openChannel();
		return new TransportChannel() {

			@Override
			public CompletableFuture<Void> publish(OutboxMessage message) {
				return ForwardingTransport.this.publish(channel, message);
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
