package dev.waybill.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.outbox.relay.RelayListener;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;

/**
 * What the harness records, fed by Waybill's own extension points: the {@link InboxListener} and
 * {@link RelayListener} beans Waybill's auto-configurations collect, and
 * {@link RecordingMessageFactory}, which sees each message an application transaction committed to
 * the outbox.
 * <p>
 * It also keeps the balance of deliveries still owed to this application's own consumers, for
 * {@link WaybillTestHarness#awaitIdle()}: each committed message bound to a local queue (by the
 * topology the RabbitMQ transport declares: a consumer's queue is bound to the exchange of its
 * message type, and the default exchange routes by queue name) adds one per queue, each redelivery
 * the inbox schedules adds one, and each delivery the inbox finished with an outcome takes one
 * away. The balance is signed because a delivery may finish before the commit that wrote it was
 * recorded.
 */
final class Observations implements InboxListener, RelayListener {

	/** Whether the current thread is delivering for {@link WaybillTestHarness#deliver}. */
	static final ThreadLocal<Boolean> HARNESS_DELIVERY = ThreadLocal.withInitial(() -> Boolean.FALSE);

	private final Supplier<List<ConsumerRegistration<?>>> consumers;

	private final Clock clock = Clock.systemUTC();

	final List<Committed> committed = new CopyOnWriteArrayList<>();

	final List<Relayed> relayed = new CopyOnWriteArrayList<>();

	final List<Relayed> relayRetried = new CopyOnWriteArrayList<>();

	final List<Relayed> deadLettered = new CopyOnWriteArrayList<>();

	final List<Consumed> consumed = new CopyOnWriteArrayList<>();

	private final AtomicInteger busy = new AtomicInteger();

	private final Map<String, AtomicInteger> owed = new ConcurrentHashMap<>();

	/** Scheduled messages committed but not published yet: owed only once published. */
	private final Set<UUID> scheduled = ConcurrentHashMap.newKeySet();

	Observations(Supplier<List<ConsumerRegistration<?>>> consumers) {
		this.consumers = consumers;
	}

	/** A message an application transaction committed to the outbox. */
	record Committed(OutboxMessage message, Object payload, boolean sent, long transaction, Instant at) {
	}

	/** A message of a scope the relay settled. */
	record Relayed(OutboxMessage message, @Nullable String error, Instant at) {
	}

	/** A delivery whose outcome the inbox committed. */
	record Consumed(ConsumerRegistration<?> consumer, InboundMessage message, InboxOutcome outcome, boolean byHarness,
			Instant at) {
	}

	void committed(OutboxMessage message, Object payload, boolean sent, long transaction) {
		this.committed.add(new Committed(message, payload, sent, transaction, this.clock.instant()));
		if (message.notBefore() != null) {
			// Scheduled: a scope of its own, pending (so awaitIdle waits for it) until the relay publishes
			// it; owed to the local queues only from then on, since it may be cancelled or expire instead.
			this.scheduled.add(message.messageId());
			return;
		}
		for (ConsumerRegistration<?> consumer : boundQueues(message)) {
			change(key(message.messageId().toString(), consumer.queue()), 1);
		}
	}

	@Override
	public void published(ClaimedScope scope, Instant confirmedAt) {
		for (OutboxMessage message : scope.messages()) {
			this.relayed.add(new Relayed(message, null, confirmedAt));
			if (this.scheduled.remove(message.messageId())) {
				for (ConsumerRegistration<?> consumer : boundQueues(message)) {
					change(key(message.messageId().toString(), consumer.queue()), 1);
				}
			}
		}
	}

	@Override
	public void retrying(ClaimedScope scope, String error, Duration delay) {
		Instant now = this.clock.instant();
		scope.messages().forEach((message) -> this.relayRetried.add(new Relayed(message, error, now)));
	}

	@Override
	public void deadLettered(ClaimedScope scope, String error) {
		Instant now = this.clock.instant();
		for (OutboxMessage message : scope.messages()) {
			this.deadLettered.add(new Relayed(message, error, now));
			neverComing(message);
		}
	}

	@Override
	public void expired(ClaimedScope scope) {
		// The relay dropped the scope unpublished: its messages never reach a local queue.
		scope.messages().forEach(this::neverComing);
	}

	/** A message the relay will not publish: no longer owed (a scheduled one never was). */
	private void neverComing(OutboxMessage message) {
		if (this.scheduled.remove(message.messageId())) {
			return;
		}
		for (ConsumerRegistration<?> consumer : boundQueues(message)) {
			change(key(message.messageId().toString(), consumer.queue()), -1);
		}
	}

	@Override
	public void started(ConsumerRegistration<?> consumer, InboundMessage message) {
		this.busy.incrementAndGet();
	}

	@Override
	public void delivered(ConsumerRegistration<?> consumer, InboundMessage message, InboxOutcome outcome) {
		boolean byHarness = HARNESS_DELIVERY.get();
		this.consumed.add(new Consumed(consumer, message, outcome, byHarness, this.clock.instant()));
		if (outcome == InboxOutcome.RETRY_SCHEDULED && message.messageId() != null) {
			change(key(message.messageId(), consumer.queue()), 1); // the redelivery, through the outbox
		}
	}

	@Override
	public void finished(ConsumerRegistration<?> consumer, InboundMessage message, @Nullable InboxOutcome outcome,
			long nanos) {
		try {
			// Without an outcome nothing was recorded: the transport returns the delivery to its queue.
			if (outcome != null && !HARNESS_DELIVERY.get() && message.messageId() != null) {
				change(key(message.messageId(), consumer.queue()), -1);
			}
		}
		finally {
			this.busy.decrementAndGet();
		}
	}

	/**
	 * Returns the local consumers a message reaches, by the topology the RabbitMQ transport declares.
	 */
	List<ConsumerRegistration<?>> boundQueues(OutboxMessage message) {
		List<ConsumerRegistration<?>> bound = new ArrayList<>();
		for (ConsumerRegistration<?> consumer : this.consumers.get()) {
			if (message.destination().isEmpty() ? consumer.queue().equals(message.routingKey())
					: consumer.messageType().equals(message.destination())) {
				bound.add(consumer);
			}
		}
		return bound;
	}

	/** How many deliveries are being processed by the inbox right now. */
	int busy() {
		return this.busy.get();
	}

	/** The deliveries still owed to local consumers, as "message id on queue". */
	List<String> inFlight() {
		List<String> owing = new ArrayList<>();
		this.owed.forEach((key, balance) -> {
			if (balance.get() > 0) {
				owing.add(key);
			}
		});
		return owing;
	}

	/**
	 * Returns how many of the deliveries still owed ({@link #inFlight()}) the relay saw confirmed by
	 * the transport: they are in the broker, or were taken from it by someone else.
	 */
	int relayedInFlight() {
		Set<String> relayedIds = new HashSet<>();
		for (Relayed relayed : this.relayed) {
			relayedIds.add(relayed.message().messageId().toString().toLowerCase(Locale.ROOT));
		}
		int count = 0;
		for (String key : inFlight()) {
			if (relayedIds.contains(key.substring(0, key.indexOf(' ')))) {
				count++;
			}
		}
		return count;
	}

	/** Forgets what was observed; what is still in flight stays tracked, it is still coming. */
	void reset() {
		this.committed.clear();
		this.relayed.clear();
		this.relayRetried.clear();
		this.deadLettered.clear();
		this.consumed.clear();
	}

	private void change(String key, int delta) {
		this.owed.computeIfAbsent(key, (k) -> new AtomicInteger()).addAndGet(delta);
	}

	private static String key(String messageId, String queue) {
		return messageId.toLowerCase(Locale.ROOT) + " on '" + queue + "'";
	}

}
