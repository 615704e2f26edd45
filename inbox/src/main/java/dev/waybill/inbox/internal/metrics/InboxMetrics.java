package dev.waybill.inbox.internal.metrics;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxListener;
import dev.waybill.inbox.InboxOutcome;

/**
 * The inbox's meters, tagged by the consumer's {@code queue} and its message {@code type} (the
 * consumer's declared type, never the inbound header, so a stream of crafted types cannot grow the
 * registry without bound). Counts and times arrive through the {@link InboxListener} callbacks.
 * <p>
 * The counters and the in-flight gauge of every consumer it is given are registered at zero when
 * it is bound, so that a dashboard or an alert finds a series before the first poison message or
 * failed batch; consumers of subtypes dispatched at run time get theirs from their first event.
 *
 * @since 0.1
 */
public final class InboxMetrics implements MeterBinder, InboxListener {

	/**
	 * Deliveries the processor committed, tagged {@code outcome}: {@code processed},
	 * {@code duplicate}, {@code already_faulted}, {@code retry_scheduled} or {@code faulted}.
	 */
	public static final String DELIVERIES = "waybill.inbox.deliveries";

	/**
	 * Time the processor worked on a delivery (handler, inbox row and commit), tagged
	 * {@code outcome} as {@link #DELIVERIES}, or {@code unavailable} when the database was
	 * unavailable and nothing was recorded.
	 */
	public static final String HANDLING = "waybill.inbox.handling";

	/**
	 * Poison deliveries: messages that could never be handled (no valid id, another type, an
	 * unreadable body, refused by the database) and went to the error queue at once. They are also
	 * counted in {@link #DELIVERIES} with {@code outcome=faulted}.
	 */
	public static final String POISON = "waybill.inbox.poison";

	/**
	 * Handler runs undone because their batch rolled back (a later delivery of it could not be
	 * handled in it); each of those deliveries is handled again, its handler running once more.
	 */
	public static final String ROLLED_BACK = "waybill.inbox.rolled.back";

	/**
	 * Keyed deliveries handled without their predecessor, which they overtook at the broker and
	 * which did not arrive within {@code waybill.inbox.predecessor-wait}: gaps in a key's order.
	 */
	public static final String ORDERING_GAPS = "waybill.inbox.ordering.gaps";

	/** Deliveries the processor is working on now. */
	public static final String IN_FLIGHT = "waybill.inbox.in.flight";

	/** Tag: the consumer's queue. */
	public static final String TAG_QUEUE = "queue";

	/** Tag: the consumer's message type. */
	public static final String TAG_TYPE = "type";

	/** Tag: the delivery's outcome. */
	public static final String TAG_OUTCOME = "outcome";

	static final String UNAVAILABLE = "unavailable";

	private static final String POISON_DESCRIPTION = "Poison deliveries the inbox moved to the error queue at once";

	private static final String GAPS_DESCRIPTION = "Keyed deliveries handled without their predecessor, which did not arrive in time";

	private static final String ROLLED_BACK_DESCRIPTION = "Handler runs undone by the rollback of their batch, run again";

	private final Map<Key, Counter> counters = new ConcurrentHashMap<>();

	private final Map<Key, Counter> poison = new ConcurrentHashMap<>();

	private final Map<Key, Counter> rolledBack = new ConcurrentHashMap<>();

	private final Map<Key, Counter> gaps = new ConcurrentHashMap<>();

	private final Map<Key, Timer> timers = new ConcurrentHashMap<>();

	private final Map<Key, AtomicInteger> inFlight = new ConcurrentHashMap<>();

	private final Supplier<List<ConsumerRegistration<?>>> consumers;

	private volatile @Nullable MeterRegistry registry;

	/**
	 * Creates meters that appear with each consumer's first event.
	 */
	public InboxMetrics() {
		this(List::of);
	}

	/**
	 * Creates meters whose counters and gauges exist, at zero, for each of the given consumers from
	 * the moment they are bound.
	 * @param consumers the consumers, asked for when the meters are bound to a registry
	 * @since 0.1
	 */
	public InboxMetrics(Supplier<List<ConsumerRegistration<?>>> consumers) {
		this.consumers = Objects.requireNonNull(consumers, "consumers must not be null");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registry = registry;
		for (ConsumerRegistration<?> consumer : this.consumers.get()) {
			for (InboxOutcome outcome : InboxOutcome.values()) {
				deliveries(registry, consumer, outcome);
			}
			counter(this.poison, POISON_DESCRIPTION, POISON, registry, consumer);
			counter(this.rolledBack, ROLLED_BACK_DESCRIPTION, ROLLED_BACK, registry, consumer);
			counter(this.gaps, GAPS_DESCRIPTION, ORDERING_GAPS, registry, consumer);
			inFlight(registry, consumer);
		}
	}

	@Override
	public void started(ConsumerRegistration<?> consumer, InboundMessage message) {
		MeterRegistry registry = this.registry;
		if (registry != null) {
			inFlight(registry, consumer).incrementAndGet();
		}
	}

	@Override
	public void delivered(ConsumerRegistration<?> consumer, InboundMessage message, InboxOutcome outcome) {
		MeterRegistry registry = this.registry;
		if (registry != null) {
			deliveries(registry, consumer, outcome).increment();
		}
	}

	private Counter deliveries(MeterRegistry registry, ConsumerRegistration<?> consumer, InboxOutcome outcome) {
		Key key = new Key(consumer.queue(), consumer.messageType(), tag(outcome));
		return this.counters.computeIfAbsent(key, (k) -> Counter.builder(DELIVERIES)
			.tags(TAG_QUEUE, k.queue, TAG_TYPE, k.type, TAG_OUTCOME, k.outcome)
			.description("Deliveries the inbox committed, by outcome")
			.baseUnit("messages")
			.register(registry));
	}

	@Override
	public void poisoned(ConsumerRegistration<?> consumer, InboundMessage message, String reason) {
		increment(this.poison, POISON, POISON_DESCRIPTION, consumer);
	}

	@Override
	public void rolledBack(ConsumerRegistration<?> consumer, InboundMessage message) {
		increment(this.rolledBack, ROLLED_BACK, ROLLED_BACK_DESCRIPTION, consumer);
	}

	@Override
	public void predecessorMissing(ConsumerRegistration<?> consumer, InboundMessage message, String previous) {
		increment(this.gaps, ORDERING_GAPS, GAPS_DESCRIPTION, consumer);
	}

	/** Counts one message on a counter tagged by the consumer's queue and type. */
	private void increment(Map<Key, Counter> counters, String name, String description,
			ConsumerRegistration<?> consumer) {
		MeterRegistry registry = this.registry;
		if (registry != null) {
			counter(counters, description, name, registry, consumer).increment();
		}
	}

	private static Counter counter(Map<Key, Counter> counters, String description, String name,
			MeterRegistry registry, ConsumerRegistration<?> consumer) {
		Key key = new Key(consumer.queue(), consumer.messageType(), "");
		return counters.computeIfAbsent(key, (k) -> Counter.builder(name)
			.tags(TAG_QUEUE, k.queue, TAG_TYPE, k.type)
			.description(description)
			.baseUnit("messages")
			.register(registry));
	}

	@Override
	public void finished(ConsumerRegistration<?> consumer, InboundMessage message, @Nullable InboxOutcome outcome,
			long nanos) {
		MeterRegistry registry = this.registry;
		if (registry != null) {
			inFlight(registry, consumer).decrementAndGet();
			Key key = new Key(consumer.queue(), consumer.messageType(), (outcome != null) ? tag(outcome) : UNAVAILABLE);
			this.timers.computeIfAbsent(key, (k) -> Timer.builder(HANDLING)
				.tags(TAG_QUEUE, k.queue, TAG_TYPE, k.type, TAG_OUTCOME, k.outcome)
				.description("Time the inbox worked on a delivery")
				.register(registry)).record(nanos, TimeUnit.NANOSECONDS);
		}
	}

	private AtomicInteger inFlight(MeterRegistry registry, ConsumerRegistration<?> consumer) {
		return this.inFlight.computeIfAbsent(new Key(consumer.queue(), consumer.messageType(), ""), (k) -> {
			AtomicInteger count = new AtomicInteger();
			Gauge.builder(IN_FLIGHT, count, AtomicInteger::get)
				.tags(TAG_QUEUE, k.queue, TAG_TYPE, k.type)
				.description("Deliveries the inbox is working on")
				.baseUnit("messages")
				.register(registry);
			return count;
		});
	}

	static String tag(InboxOutcome outcome) {
		return outcome.name().toLowerCase(Locale.ROOT);
	}

	private record Key(String queue, String type, String outcome) {
	}

}
