package dev.waybill.test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.AopProxyUtils;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.inbox.spi.FaultEvents;
import dev.waybill.kernel.MessageTypes;
import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.OutboxStats;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.test.Observations.Committed;
import dev.waybill.test.Observations.Consumed;
import dev.waybill.test.Observations.Relayed;

/**
 * Observes what Waybill does in a test and waits for it, the way MassTransit's {@code ITestHarness}
 * does: every message the application published or sent (once its transaction committed), every
 * message the relay handed to the transport, every delivery the inbox committed for a handler
 * (processed, duplicate, retry scheduled, faulted), each with the message read back and its
 * headers. Waits poll with Awaitility until {@code waybill.test.timeout} (10 s by default, see
 * {@link #within(Duration)}) and fail with an {@link AssertionError} that lists everything the
 * harness observed.
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;AutoConfigureWaybillTest
 * class PlaceOrderTests {
 *
 *     &#64;Autowired WaybillTestHarness harness;
 *
 *     &#64;Test
 *     void chargesTheCard() {
 *         UUID id = orders.place(...).id();
 *         harness.awaitPublished(OrderPlaced.class, (event) -&gt; event.orderId().equals(id));
 *         harness.awaitConsumed(ChargeCardHandler.class, OrderPlaced.class);
 *         harness.awaitIdle();
 *     }
 * }
 * </pre>
 * It can also {@link #deliver(Class, Object) deliver} a message to a handler as the broker would,
 * through the real inbox in a transaction of its own, and {@link Delivery#redeliver() deliver it
 * again} to prove the handler idempotent.
 * <p>
 * Provided by {@link AutoConfigureWaybillTest @AutoConfigureWaybillTest}, which resets it before
 * each test method. Thread-safe.
 *
 * @since 0.2
 */
public final class WaybillTestHarness {

	private static final int SHOWN_PER_KIND = 30;

	private static final int SHOWN_BODY_CHARACTERS = 200;

	private final Observations observations;

	private final Supplier<List<ConsumerRegistration<?>>> consumers;

	private final Supplier<@Nullable DeliveryProcessor> processor;

	private final Supplier<@Nullable OutboxAdmin> admin;

	private final MessageSerializer serializer;

	private final @Nullable InMemoryTransport inMemory;

	private final Duration timeout;

	private final Duration pollInterval;

	WaybillTestHarness(Observations observations, Supplier<List<ConsumerRegistration<?>>> consumers,
			Supplier<@Nullable DeliveryProcessor> processor, Supplier<@Nullable OutboxAdmin> admin,
			MessageSerializer serializer, @Nullable InMemoryTransport inMemory, Duration timeout, Duration pollInterval) {
		this.observations = observations;
		this.consumers = consumers;
		this.processor = processor;
		this.admin = admin;
		this.serializer = serializer;
		this.inMemory = inMemory;
		this.timeout = timeout;
		this.pollInterval = pollInterval;
	}

	/**
	 * Returns a harness on the same observations whose waits give up after {@code timeout}.
	 * @param timeout how long each wait waits
	 * @return the harness
	 */
	public WaybillTestHarness within(Duration timeout) {
		return new WaybillTestHarness(this.observations, this.consumers, this.processor, this.admin, this.serializer,
				this.inMemory, Objects.requireNonNull(timeout, "timeout must not be null"), this.pollInterval);
	}

	/**
	 * Forgets everything observed so far (the reset before each test method does this). Messages
	 * still on their way stay tracked for {@link #awaitIdle()}.
	 */
	public void reset() {
		this.observations.reset();
		if (this.inMemory != null) {
			this.inMemory.clear();
		}
	}

	// ---------------------------------------------------------------- what happened

	/**
	 * Returns every message published (to the exchange of its type) by a committed transaction.
	 * @return the messages in commit order, each with the object that was published
	 */
	public List<ObservedMessage<Object>> published() {
		return committed(false, Object.class);
	}

	/**
	 * Returns the messages of one type published by a committed transaction.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the messages in commit order
	 */
	public <T> List<ObservedMessage<T>> published(Class<T> type) {
		return committed(false, type);
	}

	/**
	 * Returns every message sent to a named destination by a committed transaction.
	 * @return the messages in commit order
	 */
	public List<ObservedMessage<Object>> sent() {
		return committed(true, Object.class);
	}

	/**
	 * Returns the messages of one type sent to a named destination by a committed transaction.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the messages in commit order
	 */
	public <T> List<ObservedMessage<T>> sent(Class<T> type) {
		return committed(true, type);
	}

	/**
	 * Returns the messages (published and sent) committed by the same transaction as a message, in
	 * the order they were built; the outbox relays them as one scope.
	 * @param messageId the id of a published or sent message
	 * @return the messages of its transaction, itself included; empty when the harness did not see
	 * it committed
	 */
	public List<ObservedMessage<Object>> committedWith(UUID messageId) {
		long transaction = -1;
		for (Committed committed : this.observations.committed) {
			if (committed.message().messageId().equals(messageId)) {
				transaction = committed.transaction();
			}
		}
		List<ObservedMessage<Object>> together = new ArrayList<>();
		for (Committed committed : this.observations.committed) {
			if (committed.transaction() == transaction) {
				together.add(observed(committed.message(), committed.payload(), committed));
			}
		}
		return together;
	}

	/**
	 * Returns the messages of one type the relay handed to the transport and saw confirmed, the
	 * inbox's redeliveries and faults included.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the messages in the order their scopes were settled
	 */
	public <T> List<ObservedMessage<T>> relayed(Class<T> type) {
		return relayedOf(this.observations.relayed, type);
	}

	/**
	 * Returns the messages of one type whose scope failed an attempt at the relay (a nack, an
	 * unroutable return) and waits for its next one.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the messages, once per failed attempt
	 */
	public <T> List<ObservedMessage<T>> relayRetried(Class<T> type) {
		return relayedOf(this.observations.relayRetried, type);
	}

	/**
	 * Returns the messages of one type whose scope the relay dead-lettered.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the messages
	 */
	public <T> List<ObservedMessage<T>> deadLettered(Class<T> type) {
		return relayedOf(this.observations.deadLettered, type);
	}

	/**
	 * Returns every delivery the inbox committed, whatever its outcome, with the message read into
	 * the consumer's payload class.
	 * @return the deliveries in commit order
	 */
	public List<ObservedDelivery<Object>> deliveries() {
		List<ObservedDelivery<Object>> all = new ArrayList<>();
		for (Consumed consumed : this.observations.consumed) {
			all.add(observed(consumed, Object.class, consumed.consumer().payloadClass()));
		}
		return all;
	}

	/**
	 * Returns the deliveries a handler processed: the handler ran and its work committed.
	 * @return the deliveries in commit order
	 */
	public List<ObservedDelivery<Object>> consumed() {
		return deliveries().stream().filter((delivery) -> delivery.outcome() == InboxOutcome.PROCESSED).toList();
	}

	/**
	 * Returns the deliveries of one message type processed by any handler.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the deliveries in commit order
	 */
	public <T> List<ObservedDelivery<T>> consumed(Class<T> type) {
		return deliveries(null, type, InboxOutcome.PROCESSED);
	}

	/**
	 * Returns the deliveries of one message type processed by one handler.
	 * @param <T> the message class
	 * @param handler the handler class (or a supertype of it)
	 * @param type the message class
	 * @return the deliveries in commit order
	 */
	public <T> List<ObservedDelivery<T>> consumed(Class<?> handler, Class<T> type) {
		return deliveries(handler, type, InboxOutcome.PROCESSED);
	}

	/**
	 * Returns the deliveries of one message type whose handler failed and whose redelivery the inbox
	 * scheduled.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the deliveries in commit order
	 */
	public <T> List<ObservedDelivery<T>> retried(Class<T> type) {
		return deliveries(null, type, InboxOutcome.RETRY_SCHEDULED);
	}

	/**
	 * Returns the deliveries of one message type the inbox moved to a consumer's error queue.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the deliveries in commit order
	 */
	public <T> List<ObservedDelivery<T>> faulted(Class<T> type) {
		return deliveries(null, type, InboxOutcome.FAULTED);
	}

	/**
	 * Returns the deliveries of one message type a consumer had processed already: the handler was
	 * not called.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the deliveries in commit order
	 */
	public <T> List<ObservedDelivery<T>> duplicates(Class<T> type) {
		return deliveries(null, type, InboxOutcome.DUPLICATE);
	}

	// ---------------------------------------------------------------- waits

	/**
	 * Waits until a transaction that published a message of this type committed.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the first such message
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedMessage<T> awaitPublished(Class<T> type) {
		return awaitPublished(type, (message) -> true);
	}

	/**
	 * Waits until a transaction that published a matching message of this type committed.
	 * @param <T> the message class
	 * @param type the message class
	 * @param matching the condition on the message
	 * @return the first such message
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedMessage<T> awaitPublished(Class<T> type, Predicate<? super T> matching) {
		return await("a published " + name(type) + " that matches", () -> first(published(type), matching));
	}

	/**
	 * Waits until a transaction that sent a message of this type to a named destination committed.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the first such message
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedMessage<T> awaitSent(Class<T> type) {
		return awaitSent(type, (message) -> true);
	}

	/**
	 * Waits until a transaction that sent a message of this type to a named destination committed.
	 * @param <T> the message class
	 * @param type the message class
	 * @param matching the condition on the message
	 * @return the first such message
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedMessage<T> awaitSent(Class<T> type, Predicate<? super T> matching) {
		return await("a sent " + name(type) + " that matches", () -> first(sent(type), matching));
	}

	/**
	 * Waits until the relay handed a message of this type to the transport and saw it confirmed.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the first such message
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedMessage<T> awaitRelayed(Class<T> type) {
		return awaitRelayed(type, (message) -> true);
	}

	/**
	 * Waits until the relay handed a matching message of this type to the transport and saw it
	 * confirmed.
	 * @param <T> the message class
	 * @param type the message class
	 * @param matching the condition on the message
	 * @return the first such message
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedMessage<T> awaitRelayed(Class<T> type, Predicate<? super T> matching) {
		return await("a relayed " + name(type) + " that matches", () -> first(relayed(type), matching));
	}

	/**
	 * Waits until the relay dead-lettered a scope holding a message of this type.
	 * @param <T> the message class
	 * @param type the message class
	 * @return the first such message
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedMessage<T> awaitDeadLettered(Class<T> type) {
		return awaitDeadLettered(type, (message) -> true);
	}

	/**
	 * Waits until the relay dead-lettered a scope holding a matching message of this type: its
	 * attempts are exhausted or its failure is permanent.
	 * @param <T> the message class
	 * @param type the message class
	 * @param matching the condition on the message
	 * @return the first such message
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedMessage<T> awaitDeadLettered(Class<T> type, Predicate<? super T> matching) {
		return await("a dead-lettered " + name(type) + " that matches", () -> first(deadLettered(type), matching));
	}

	/**
	 * Waits until a handler of this class processed a message of this type.
	 * @param <T> the message class
	 * @param handler the handler class (or a supertype of it)
	 * @param type the message class
	 * @return the first such delivery
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedDelivery<T> awaitConsumed(Class<?> handler, Class<T> type) {
		return awaitConsumed(handler, type, (message) -> true);
	}

	/**
	 * Waits until a handler of this class processed a matching message of this type.
	 * @param <T> the message class
	 * @param handler the handler class (or a supertype of it)
	 * @param type the message class
	 * @param matching the condition on the message
	 * @return the first such delivery
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedDelivery<T> awaitConsumed(Class<?> handler, Class<T> type, Predicate<? super T> matching) {
		return awaitOutcome(handler, type, matching, InboxOutcome.PROCESSED, "consumed by");
	}

	/**
	 * Waits until a handler of this class failed on a message of this type and the inbox scheduled
	 * its redelivery.
	 * @param <T> the message class
	 * @param handler the handler class (or a supertype of it)
	 * @param type the message class
	 * @return the first such delivery
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedDelivery<T> awaitRetried(Class<?> handler, Class<T> type) {
		return awaitOutcome(handler, type, (message) -> true, InboxOutcome.RETRY_SCHEDULED, "retried by");
	}

	/**
	 * Waits until the inbox moved a message of this type to the error queue of a handler of this class.
	 * @param <T> the message class
	 * @param handler the handler class (or a supertype of it)
	 * @param type the message class
	 * @return the first such delivery, with the headers it arrived with (the copy in the error queue
	 * carries the fault, see {@link dev.waybill.inbox.InboxHeaders})
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedDelivery<T> awaitFaulted(Class<?> handler, Class<T> type) {
		return awaitFaulted(handler, type, (message) -> true);
	}

	/**
	 * Waits until the inbox moved a matching message of this type to the error queue of a handler of
	 * this class.
	 * @param <T> the message class
	 * @param handler the handler class (or a supertype of it)
	 * @param type the message class
	 * @param matching the condition on the message
	 * @return the first such delivery
	 * @throws AssertionError on timeout, listing what was observed
	 */
	public <T> ObservedDelivery<T> awaitFaulted(Class<?> handler, Class<T> type, Predicate<? super T> matching) {
		return awaitOutcome(handler, type, matching, InboxOutcome.FAULTED, "faulted by");
	}

	/**
	 * Waits until Waybill has nothing left to do: no outbox scope pending (written and not yet
	 * published or dead, redeliveries waiting out their backoff included), no message published to
	 * one of the application's own queues still on its way to its handler, and no handler running.
	 * @throws AssertionError on timeout, listing what was observed and what is still under way
	 */
	public void awaitIdle() {
		// Idle at two polls in a row: a scheduled message is owed to its consumers only once the relay
		// reports it published, an instant after its scope stopped being pending.
		AtomicBoolean idleBefore = new AtomicBoolean();
		await("Waybill to be idle", () -> {
			boolean idle = idle();
			boolean confirmed = idle && idleBefore.get();
			idleBefore.set(idle);
			return confirmed ? Optional.of(Boolean.TRUE) : Optional.empty();
		});
	}

	// ---------------------------------------------------------------- delivering

	/**
	 * Returns the fault event a consumer publishes when it gives {@code message} up, its last
	 * delivery failing with {@code exception}, as {@code waybill.inbox.faults.publish} makes it: for
	 * {@link #deliver(Class, Object)} to a {@code MessageHandler<Fault<T>>}. It has a new message
	 * id, the message's type name, this host, the current time and one attempt.
	 * @param <T> the type of the message that failed
	 * @param message the message that failed
	 * @param consumer the consumer (queue) that gave it up
	 * @param exception the exception its handler threw
	 * @return the fault event
	 */
	public static <T> Fault<T> fault(T message, String consumer, Throwable exception) {
		Objects.requireNonNull(message, "message must not be null");
		return FaultEvents.of(message, UUID.randomUUID(), MessageTypes.nameOf(message), null, null, consumer,
				java.time.Instant.now(), 1, Objects.requireNonNull(exception, "exception must not be null"), "");
	}

	/**
	 * Delivers a message to a handler as if it came from the broker: through the real inbox, in a
	 * transaction of its own, with a new message id. The handler's work, the inbox row and what it
	 * publishes commit together.
	 * @param handler the handler class (or a supertype of it); exactly one consumer must match
	 * @param message the message
	 * @return the delivery, with what the inbox committed
	 */
	public Delivery deliver(Class<?> handler, Object message) {
		return deliver(handler, message, (options) -> {
		});
	}

	/**
	 * Delivers a message to a handler as if it came from the broker, with the envelope
	 * {@code options} sets.
	 * @param handler the handler class (or a supertype of it); exactly one consumer must match
	 * @param message the message
	 * @param options sets the message id, headers, correlation and conversation ids
	 * @return the delivery, with what the inbox committed
	 */
	public Delivery deliver(Class<?> handler, Object message, Consumer<DeliveryOptions> options) {
		Objects.requireNonNull(message, "message must not be null");
		// A fault event travels as fault:<the failed message's type>, not as Fault's class name.
		String type = (message instanceof Fault<?> fault) ? Fault.typeName(fault.messageType())
				: MessageTypes.nameOf(message);
		ConsumerRegistration<?> consumer = consumerOf(handler, message.getClass(), type);
		DeliveryOptions envelope = new DeliveryOptions();
		options.accept(envelope);
		byte[] body;
		try {
			body = this.serializer.serialize(message);
		}
		catch (Exception ex) {
			throw new IllegalArgumentException("Could not serialize " + message + ": " + ex.getMessage(), ex);
		}
		InboundMessage inbound = new InboundMessage(envelope.messageId().toString(), type,
				this.serializer.contentType(), envelope.headers(), body, envelope.correlationId(),
				envelope.conversationId(), type, "");
		return deliver(consumer, inbound);
	}

	Delivery deliver(ConsumerRegistration<?> consumer, InboundMessage message) {
		DeliveryProcessor inbox = this.processor.get();
		if (inbox == null) {
			throw new IllegalStateException("The application has no inbox: it declares no MessageHandler bean");
		}
		Observations.HARNESS_DELIVERY.set(Boolean.TRUE);
		try {
			return new Delivery(this, consumer, message, inbox.process(consumer, message));
		}
		finally {
			Observations.HARNESS_DELIVERY.remove();
		}
	}

	// ---------------------------------------------------------------- the report

	/**
	 * Describes everything observed since the last reset and what is still under way, as the waits
	 * report it when they time out.
	 * @return the description
	 */
	public String describe() {
		StringBuilder text = new StringBuilder("Waybill observed:");
		List<String> published = new ArrayList<>();
		List<String> sent = new ArrayList<>();
		for (Committed committed : this.observations.committed) {
			(committed.sent() ? sent : published).add(describe(committed.message()));
		}
		section(text, "published (committed)", published);
		section(text, "sent (committed)", sent);
		section(text, "relayed", this.observations.relayed.stream().map((r) -> describe(r.message())).toList());
		section(text, "relay retries", this.observations.relayRetried.stream()
			.map((r) -> describe(r.message()) + " (" + r.error() + ")").toList());
		section(text, "dead-lettered by the relay", this.observations.deadLettered.stream()
			.map((r) -> describe(r.message()) + " (" + r.error() + ")").toList());
		section(text, "deliveries", this.observations.consumed.stream().map(this::describe).toList());
		if (this.inMemory != null) {
			section(text, "unrouted (in memory, no local consumer)",
					this.inMemory.unrouted().stream().map(WaybillTestHarness::describe).toList());
		}
		text.append("\nunder way: ").append(underWay());
		return text.toString();
	}

	@Override
	public String toString() {
		return "WaybillTestHarness[" + this.observations.committed.size() + " committed, "
				+ this.observations.consumed.size() + " deliveries]";
	}

	// ---------------------------------------------------------------- internals

	private boolean idle() {
		OutboxAdmin outbox = this.admin.get();
		if (outbox != null && outbox.stats().pendingScopes() > 0) {
			return false;
		}
		return this.observations.busy() == 0 && this.observations.inFlight().isEmpty()
				&& (this.inMemory == null || this.inMemory.queued() == 0);
	}

	private String underWay() {
		List<String> parts = new ArrayList<>();
		OutboxAdmin outbox = this.admin.get();
		if (outbox != null) {
			try {
				OutboxStats stats = outbox.stats();
				parts.add(stats.pendingScopes() + " outbox scopes pending (" + stats.pendingMessages() + " messages), "
						+ stats.deadScopes() + " dead");
			}
			catch (RuntimeException ex) {
				parts.add("outbox stats unavailable: " + ex);
			}
		}
		parts.add(this.observations.busy() + " handlers running");
		List<String> inFlight = this.observations.inFlight();
		parts.add(inFlight.size() + " deliveries on their way to local handlers" + (inFlight.isEmpty() ? ""
				: " " + inFlight.subList(0, Math.min(inFlight.size(), SHOWN_PER_KIND))));
		if (this.inMemory != null) {
			parts.add(this.inMemory.queued() + " queued in memory");
		}
		else {
			int relayedInFlight = this.observations.relayedInFlight();
			if (relayedInFlight > 0) {
				parts.add(relayedInFlight + " of those deliveries confirmed by the broker but not received here: if "
						+ "that lasts, another consumer of the queue may be taking them (a running instance of the "
						+ "service, another test run on the same broker). The test uses the queues its @Consumer "
						+ "handlers name; give it a RabbitMQ virtual host of its own (spring.rabbitmq.virtual-host) "
						+ "or TestTransport.IN_MEMORY");
			}
		}
		return String.join("; ", parts);
	}

	private <R> R await(String expectation, Supplier<Optional<R>> probe) {
		AtomicReference<R> found = new AtomicReference<>();
		try {
			Awaitility.await(expectation)
				.atMost(this.timeout)
				.pollDelay(Duration.ZERO)
				.pollInterval(this.pollInterval)
				.until(() -> {
					Optional<R> result = probe.get();
					result.ifPresent(found::set);
					return result.isPresent();
				});
		}
		catch (ConditionTimeoutException ex) {
			throw new AssertionError("Expected " + expectation + " within " + this.timeout + ", but it did not happen.\n"
					+ describe(), ex);
		}
		return found.get();
	}

	private <T> ObservedDelivery<T> awaitOutcome(Class<?> handler, Class<T> type, Predicate<? super T> matching,
			InboxOutcome outcome, String what) {
		return await("a " + name(type) + " " + what + " " + handler.getSimpleName() + " that matches", () -> {
			for (ObservedDelivery<T> delivery : deliveries(handler, type, outcome)) {
				if (delivery.message() != null && matching.test(delivery.message())) {
					return Optional.of(delivery);
				}
			}
			return Optional.empty();
		});
	}

	private static <T> Optional<ObservedMessage<T>> first(List<ObservedMessage<T>> messages,
			Predicate<? super T> matching) {
		return messages.stream().filter((message) -> matching.test(message.message())).findFirst();
	}

	private <T> List<ObservedMessage<T>> committed(boolean sent, Class<T> type) {
		List<ObservedMessage<T>> found = new ArrayList<>();
		for (Committed committed : this.observations.committed) {
			if (committed.sent() == sent && type.isInstance(committed.payload())) {
				found.add(observed(committed.message(), type.cast(committed.payload()), committed));
			}
		}
		return found;
	}

	private <T> List<ObservedMessage<T>> relayedOf(List<Relayed> relayed, Class<T> type) {
		String name = MessageTypes.nameOf(type);
		List<ObservedMessage<T>> found = new ArrayList<>();
		for (Relayed message : relayed) {
			if (name.equals(message.message().messageType())) {
				T payload = read(message.message().body(), type);
				if (payload != null) {
					found.add(observed(message.message(), payload, message));
				}
			}
		}
		return found;
	}

	private <T> List<ObservedDelivery<T>> deliveries(@Nullable Class<?> handler, Class<T> type, InboxOutcome outcome) {
		String name = MessageTypes.nameOf(type);
		List<ObservedDelivery<T>> found = new ArrayList<>();
		for (Consumed consumed : this.observations.consumed) {
			if (consumed.outcome() == outcome && ofType(consumed.message().messageType(), type, name)
					&& (handler == null || handler.isAssignableFrom(handlerClass(consumed.consumer())))) {
				found.add(observed(consumed, type, type));
			}
		}
		return found;
	}

	/**
	 * Whether a delivered message type is one of {@code type}: its name, or for {@link Fault} any
	 * fault event ({@code fault:<type>}), which is never named after Fault's class.
	 */
	private static boolean ofType(@Nullable String messageType, Class<?> type, String name) {
		return name.equals(messageType) || (Fault.class.equals(type) && messageType != null
				&& messageType.startsWith(Fault.TYPE_PREFIX));
	}

	private <T> ObservedDelivery<T> observed(Consumed consumed, Class<T> type, Class<?> readAs) {
		InboundMessage message = consumed.message();
		// A Fault<T> is read with its generic argument, so that fault.message() is a T, not a map.
		Object payload = Fault.class.equals(readAs) ? read(message.body(), consumed.consumer().payloadType())
				: read(message.body(), readAs);
		return new ObservedDelivery<>(consumed.consumer().queue(), handlerClass(consumed.consumer()),
				message.messageId(), message.messageType(), message.headers(), type.isInstance(payload) ? type.cast(payload) : null,
				consumed.outcome(), consumed.byHarness(), consumed.at());
	}

	private static <T> ObservedMessage<T> observed(OutboxMessage message, T payload, Object record) {
		java.time.Instant at = (record instanceof Committed committed) ? committed.at() : ((Relayed) record).at();
		return new ObservedMessage<>(message.messageId(), message.messageType(), message.destination(),
				message.routingKey(), message.headers(), message.correlationId(), message.conversationId(), payload, at);
	}

	private @Nullable Object read(byte[] body, java.lang.reflect.Type type) {
		try {
			return this.serializer.deserialize(body, type);
		}
		catch (Exception ex) {
			return null;
		}
	}

	private <T> @Nullable T read(byte[] body, Class<T> type) {
		try {
			return this.serializer.deserialize(body, type);
		}
		catch (Exception ex) {
			return null;
		}
	}

	private ConsumerRegistration<?> consumerOf(Class<?> handler, Class<?> messageClass, String messageType) {
		List<ConsumerRegistration<?>> all = this.consumers.get();
		List<ConsumerRegistration<?>> matching = all.stream()
			.filter((consumer) -> handler.isAssignableFrom(handlerClass(consumer)))
			.filter((consumer) -> consumer.payloadClass().isAssignableFrom(messageClass))
			.filter((consumer) -> !Fault.class.equals(messageClass) || consumer.messageType().equals(messageType))
			.toList();
		if (matching.size() != 1) {
			throw new IllegalArgumentException((matching.isEmpty() ? "No consumer" : "More than one consumer")
					+ " of handler " + handler.getName() + " for " + messageClass.getName() + "; the consumers are "
					+ all.stream().map((c) -> "'" + c.queue() + "' (" + handlerClass(c).getSimpleName() + ", "
							+ c.payloadClass().getSimpleName() + ")").toList());
		}
		return matching.get(0);
	}

	static Class<?> handlerClass(ConsumerRegistration<?> consumer) {
		MessageHandler<?> handler = consumer.handler();
		return AopProxyUtils.ultimateTargetClass(handler);
	}

	private String describe(Consumed consumed) {
		InboundMessage message = consumed.message();
		return consumed.outcome() + " by '" + consumed.consumer().queue() + "' ("
				+ handlerClass(consumed.consumer()).getSimpleName() + ")" + (consumed.byHarness() ? " [delivered by the test]" : "")
				+ ": " + message.messageType() + " " + message.messageId() + " " + body(message.body());
	}

	private static String describe(OutboxMessage message) {
		return message.messageType() + " " + message.messageId() + " -> '" + message.destination() + "'"
				+ (message.routingKey().isEmpty() ? "" : " '" + message.routingKey() + "'") + " " + body(message.body());
	}

	private static String body(byte[] body) {
		String text = new String(body, StandardCharsets.UTF_8);
		return (text.length() > SHOWN_BODY_CHARACTERS) ? text.substring(0, SHOWN_BODY_CHARACTERS) + "..." : text;
	}

	private static void section(StringBuilder text, String title, List<String> lines) {
		text.append("\n  ").append(title).append(" (").append(lines.size()).append(")");
		text.append(lines.isEmpty() ? ": none" : ":");
		lines.stream().limit(SHOWN_PER_KIND).forEach((line) -> text.append("\n    ").append(line));
		if (lines.size() > SHOWN_PER_KIND) {
			text.append("\n    ... ").append(lines.size() - SHOWN_PER_KIND).append(" more");
		}
	}

	private static String name(Class<?> type) {
		return type.getSimpleName();
	}

}
