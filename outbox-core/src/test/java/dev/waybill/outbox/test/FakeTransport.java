package dev.waybill.outbox.test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;

/**
 * An in-memory broker for relay tests: confirms asynchronously in publish order, and can nack,
 * refuse permanently or never confirm per destination, nack one message's next publish, or be
 * "down" (channels drop and no new one opens). Records every attempt and every confirmed delivery.
 */
public class FakeTransport implements Transport {

	/** What the broker does with a message for a destination. */
	public enum Behaviour {

		CONFIRM, NACK, PERMANENT, HANG

	}

	/** A publish call. */
	public record Attempt(UUID messageId, String destination, Instant at) {
	}

	private final ExecutorService confirmer = Executors.newSingleThreadExecutor((task) -> {
		Thread thread = new Thread(task, "fake-broker");
		thread.setDaemon(true);
		return thread;
	});

	private final Map<String, Behaviour> behaviours = new ConcurrentHashMap<>();

	private final Set<UUID> nackOnce = ConcurrentHashMap.newKeySet();

	private final Map<UUID, CompletableFuture<Behaviour>> held = new ConcurrentHashMap<>();

	private final Set<FakeChannel> channels = ConcurrentHashMap.newKeySet();

	private final List<Attempt> attempts = Collections.synchronizedList(new ArrayList<>());

	private final List<OutboxMessage> delivered = Collections.synchronizedList(new ArrayList<>());

	private volatile boolean down;

	public void behave(String destination, Behaviour behaviour) {
		this.behaviours.put(destination, behaviour);
	}

	/** Nacks the next publish of the message, then behaves as its destination does. */
	public void nackOnce(UUID messageId) {
		this.nackOnce.add(messageId);
	}

	/**
	 * Holds the answer to the next publish of the message until the returned future completes,
	 * then answers as it says.
	 * @param messageId the message
	 * @return complete it with how to answer
	 */
	public CompletableFuture<Behaviour> hold(UUID messageId) {
		CompletableFuture<Behaviour> answer = new CompletableFuture<>();
		this.held.put(messageId, answer);
		return answer;
	}

	/** Takes the broker down (dropping every channel) or brings it back. */
	public void down(boolean down) {
		this.down = down;
		if (down) {
			this.channels.forEach(FakeChannel::close);
		}
	}

	public List<Attempt> attempts() {
		synchronized (this.attempts) {
			return List.copyOf(this.attempts);
		}
	}

	public List<Attempt> attempts(String destination) {
		return attempts().stream().filter((a) -> a.destination().equals(destination)).toList();
	}

	public List<OutboxMessage> delivered() {
		synchronized (this.delivered) {
			return List.copyOf(this.delivered);
		}
	}

	@Override
	public TransportChannel openChannel() throws TransportException {
		if (this.down) {
			throw new TransportException(TransportException.Kind.UNAVAILABLE, "fake broker is down");
		}
		FakeChannel channel = new FakeChannel();
		this.channels.add(channel);
		return channel;
	}

	@Override
	public void close() {
		this.channels.forEach(FakeChannel::close);
		this.confirmer.shutdownNow();
	}

	private final class FakeChannel implements TransportChannel {

		private final Set<CompletableFuture<Void>> pending = ConcurrentHashMap.newKeySet();

		private volatile boolean open = true;

		@Override
		public CompletableFuture<Void> publish(OutboxMessage message) {
			CompletableFuture<Void> confirm = new CompletableFuture<>();
			if (!this.open) {
				confirm.completeExceptionally(new TransportException(TransportException.Kind.UNAVAILABLE, "channel closed"));
				return confirm;
			}
			FakeTransport.this.attempts.add(new Attempt(message.messageId(), message.destination(), Instant.now()));
			this.pending.add(confirm);
			CompletableFuture<Behaviour> held = FakeTransport.this.held.remove(message.messageId());
			if (held != null) {
				held.thenAccept((behaviour) -> answer(behaviour, message, confirm));
				return confirm;
			}
			Behaviour behaviour = FakeTransport.this.nackOnce.remove(message.messageId()) ? Behaviour.NACK
					: FakeTransport.this.behaviours.getOrDefault(message.destination(), Behaviour.CONFIRM);
			answer(behaviour, message, confirm);
			return confirm;
		}

		private void answer(Behaviour behaviour, OutboxMessage message, CompletableFuture<Void> confirm) {
			switch (behaviour) {
				case CONFIRM -> FakeTransport.this.confirmer.execute(() -> {
					if (this.pending.remove(confirm)) {
						FakeTransport.this.delivered.add(message);
						confirm.complete(null);
					}
				});
				case NACK -> FakeTransport.this.confirmer.execute(() -> fail(confirm, TransportException.Kind.MESSAGE,
						"nack for " + message.messageId()));
				case PERMANENT -> fail(confirm, TransportException.Kind.PERMANENT, "destination refused");
				case HANG -> {
				}
			}
		}

		private void fail(CompletableFuture<Void> confirm, TransportException.Kind kind, String reason) {
			if (this.pending.remove(confirm)) {
				confirm.completeExceptionally(new TransportException(kind, reason));
			}
		}

		@Override
		public boolean isOpen() {
			return this.open;
		}

		@Override
		public void close() {
			this.open = false;
			FakeTransport.this.channels.remove(this);
			for (CompletableFuture<Void> confirm : List.copyOf(this.pending)) {
				fail(confirm, TransportException.Kind.UNAVAILABLE, "channel closed");
			}
		}

	}

}
