package dev.waybill.test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Predicate;

import dev.waybill.inbox.Fault;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.spi.FaultEvents;
import dev.waybill.kernel.MessageTypes;

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
 * @since 0.1
 */
public final class WaybillTestHarness {

	private final Observations observations;

	private final ObservationReader reader;

	private final UnderWay underWay;

	private final ObservationReport report;

	private final TestDeliveries deliveries;

	private final Awaiting awaiting;

	private final HarnessSources sources;

	WaybillTestHarness(HarnessSources sources, Duration timeout, Duration pollInterval) {
		this.sources = sources;
		this.observations = sources.observations();
		this.reader = new ObservationReader(sources.observations(), sources.serializer());
		this.underWay = new UnderWay(sources.observations(), sources.admin(), sources.inMemory());
		this.report = new ObservationReport(sources.observations(), this.underWay, sources.inMemory());
		this.deliveries = new TestDeliveries(sources.consumers(), sources.processor(), sources.serializer());
		this.awaiting = new Awaiting(timeout, pollInterval, this.report::describe);
	}

	/**
	 * Returns a harness on the same observations whose waits give up after {@code timeout}.
	 * @param timeout how long each wait waits
	 * @return the harness
	 */
	public WaybillTestHarness within(Duration timeout) {
		return new WaybillTestHarness(this.sources, Objects.requireNonNull(timeout, "timeout must not be null"),
				this.awaiting.pollInterval());
	}

	/**
	 * Forgets everything observed so far (the reset before each test method does this). Messages
	 * still on their way stay tracked for {@link #awaitIdle()}.
	 */
	public void reset() {
		this.observations.reset();
		if (this.sources.inMemory() != null) {
			this.sources.inMemory().clear();
		}
	}

	// ---------------------------------------------------------------- what happened
	// In the methods below, <T> and type are the message class; handler is a handler class or a
	// supertype of it. Lists keep the order things happened in.

	/**
	 * Returns every message published (to the exchange of its type) by a committed transaction.
	 * @return the messages in commit order, each with the object that was published
	 */
	public List<ObservedMessage<Object>> published() {
		return this.reader.committed(false, Object.class);
	}

	/** Returns the messages of one type published by a committed transaction. */
	public <T> List<ObservedMessage<T>> published(Class<T> type) {
		return this.reader.committed(false, type);
	}

	/** Returns every message sent to a named destination by a committed transaction. */
	public List<ObservedMessage<Object>> sent() {
		return this.reader.committed(true, Object.class);
	}

	/** Returns the messages of one type sent to a named destination by a committed transaction. */
	public <T> List<ObservedMessage<T>> sent(Class<T> type) {
		return this.reader.committed(true, type);
	}

	/**
	 * Returns the messages (published and sent) committed by the same transaction as a message, in
	 * the order they were built; the outbox relays them as one scope.
	 * @param messageId the id of a published or sent message
	 * @return the messages of its transaction, itself included; empty when the harness did not see
	 * it committed
	 */
	public List<ObservedMessage<Object>> committedWith(UUID messageId) {
		return this.reader.committedWith(messageId);
	}

	/**
	 * Returns the messages of one type the relay handed to the transport and saw confirmed, the
	 * inbox's redeliveries and faults included.
	 * @return the messages in the order their scopes were settled
	 */
	public <T> List<ObservedMessage<T>> relayed(Class<T> type) {
		return this.reader.relayed(this.observations.relayed, type);
	}

	/**
	 * Returns the messages of one type whose scope failed an attempt at the relay (a nack, an
	 * unroutable return) and waits for its next one.
	 * @return the messages, once per failed attempt
	 */
	public <T> List<ObservedMessage<T>> relayRetried(Class<T> type) {
		return this.reader.relayed(this.observations.relayRetried, type);
	}

	/** Returns the messages of one type whose scope the relay dead-lettered. */
	public <T> List<ObservedMessage<T>> deadLettered(Class<T> type) {
		return this.reader.relayed(this.observations.deadLettered, type);
	}

	/**
	 * Returns every delivery the inbox committed, whatever its outcome, with the message read into
	 * the consumer's payload class.
	 */
	public List<ObservedDelivery<Object>> deliveries() {
		return this.reader.deliveries();
	}

	/** Returns the deliveries a handler processed: the handler ran and its work committed. */
	public List<ObservedDelivery<Object>> consumed() {
		return deliveries().stream().filter((delivery) -> delivery.outcome() == InboxOutcome.PROCESSED).toList();
	}

	/** Returns the deliveries of one message type processed by any handler. */
	public <T> List<ObservedDelivery<T>> consumed(Class<T> type) {
		return this.reader.deliveries(null, type, InboxOutcome.PROCESSED);
	}

	/** Returns the deliveries of one message type processed by one handler. */
	public <T> List<ObservedDelivery<T>> consumed(Class<?> handler, Class<T> type) {
		return this.reader.deliveries(handler, type, InboxOutcome.PROCESSED);
	}

	/**
	 * Returns the deliveries of one message type whose handler failed and whose redelivery the inbox
	 * scheduled.
	 */
	public <T> List<ObservedDelivery<T>> retried(Class<T> type) {
		return this.reader.deliveries(null, type, InboxOutcome.RETRY_SCHEDULED);
	}

	/** Returns the deliveries of one message type the inbox moved to a consumer's error queue. */
	public <T> List<ObservedDelivery<T>> faulted(Class<T> type) {
		return this.reader.deliveries(null, type, InboxOutcome.FAULTED);
	}

	/**
	 * Returns the deliveries of one message type a consumer had processed already: the handler was
	 * not called.
	 */
	public <T> List<ObservedDelivery<T>> duplicates(Class<T> type) {
		return this.reader.deliveries(null, type, InboxOutcome.DUPLICATE);
	}

	// ---------------------------------------------------------------- waits
	// Each wait returns the first message or delivery that matches (any of the type without a
	// condition), and fails on timeout with an AssertionError listing what was observed (describe()).

	/** Waits until a transaction that published a message of this type committed. */
	public <T> ObservedMessage<T> awaitPublished(Class<T> type) {
		return awaitPublished(type, (message) -> true);
	}

	/** Waits until a transaction that published a matching message of this type committed. */
	public <T> ObservedMessage<T> awaitPublished(Class<T> type, Predicate<? super T> matching) {
		return this.awaiting.await("a published " + type.getSimpleName() + " that matches",
				() -> first(published(type), matching));
	}

	/** Waits until a transaction that sent a message of this type to a named destination committed. */
	public <T> ObservedMessage<T> awaitSent(Class<T> type) {
		return awaitSent(type, (message) -> true);
	}

	/**
	 * Waits until a transaction that sent a matching message of this type to a named destination
	 * committed.
	 */
	public <T> ObservedMessage<T> awaitSent(Class<T> type, Predicate<? super T> matching) {
		return this.awaiting.await("a sent " + type.getSimpleName() + " that matches",
				() -> first(sent(type), matching));
	}

	/** Waits until the relay handed a message of this type to the transport and saw it confirmed. */
	public <T> ObservedMessage<T> awaitRelayed(Class<T> type) {
		return awaitRelayed(type, (message) -> true);
	}

	/**
	 * Waits until the relay handed a matching message of this type to the transport and saw it
	 * confirmed.
	 */
	public <T> ObservedMessage<T> awaitRelayed(Class<T> type, Predicate<? super T> matching) {
		return this.awaiting.await("a relayed " + type.getSimpleName() + " that matches",
				() -> first(relayed(type), matching));
	}

	/** Waits until the relay dead-lettered a scope holding a message of this type. */
	public <T> ObservedMessage<T> awaitDeadLettered(Class<T> type) {
		return awaitDeadLettered(type, (message) -> true);
	}

	/**
	 * Waits until the relay dead-lettered a scope holding a matching message of this type: its
	 * attempts are exhausted or its failure is permanent.
	 */
	public <T> ObservedMessage<T> awaitDeadLettered(Class<T> type, Predicate<? super T> matching) {
		return this.awaiting.await("a dead-lettered " + type.getSimpleName() + " that matches",
				() -> first(deadLettered(type), matching));
	}

	/** Waits until a handler of this class processed a message of this type. */
	public <T> ObservedDelivery<T> awaitConsumed(Class<?> handler, Class<T> type) {
		return awaitConsumed(handler, type, (message) -> true);
	}

	/** Waits until a handler of this class processed a matching message of this type. */
	public <T> ObservedDelivery<T> awaitConsumed(Class<?> handler, Class<T> type, Predicate<? super T> matching) {
		return awaitOutcome(handler, type, matching, InboxOutcome.PROCESSED, "consumed by");
	}

	/**
	 * Waits until a handler of this class failed on a message of this type and the inbox scheduled
	 * its redelivery.
	 */
	public <T> ObservedDelivery<T> awaitRetried(Class<?> handler, Class<T> type) {
		return awaitOutcome(handler, type, (message) -> true, InboxOutcome.RETRY_SCHEDULED, "retried by");
	}

	/**
	 * Waits until the inbox moved a message of this type to the error queue of a handler of this class.
	 * @return the first such delivery, with the headers it arrived with (the copy in the error queue
	 * carries the fault, see {@link dev.waybill.inbox.InboxHeaders})
	 */
	public <T> ObservedDelivery<T> awaitFaulted(Class<?> handler, Class<T> type) {
		return awaitFaulted(handler, type, (message) -> true);
	}

	/**
	 * Waits until the inbox moved a matching message of this type to the error queue of a handler of
	 * this class.
	 */
	public <T> ObservedDelivery<T> awaitFaulted(Class<?> handler, Class<T> type, Predicate<? super T> matching) {
		return awaitOutcome(handler, type, matching, InboxOutcome.FAULTED, "faulted by");
	}

	/**
	 * Waits until Waybill has nothing left to do: no outbox scope pending (written and not yet
	 * published or dead, redeliveries waiting out their backoff included), no message published to
	 * one of the application's own queues still on its way to its handler, and no handler running.
	 * The failure on timeout lists what is still under way.
	 */
	public void awaitIdle() {
		this.awaiting.awaitSteadily("Waybill to be idle", this.underWay::idle);
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
				Instant.now(), 1, Objects.requireNonNull(exception, "exception must not be null"), "");
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
		return this.deliveries.deliver(handler, message, options);
	}

	// ---------------------------------------------------------------- the report

	/**
	 * Describes everything observed since the last reset and what is still under way, as the waits
	 * report it when they time out.
	 * @return the description
	 */
	public String describe() {
		return this.report.describe();
	}

	@Override
	public String toString() {
		return "WaybillTestHarness[" + this.observations.committed.size() + " committed, "
				+ this.observations.consumed.size() + " deliveries]";
	}

	private <T> ObservedDelivery<T> awaitOutcome(Class<?> handler, Class<T> type, Predicate<? super T> matching,
			InboxOutcome outcome, String what) {
		return this.awaiting.await("a " + type.getSimpleName() + " " + what + " " + handler.getSimpleName()
				+ " that matches", () -> {
					for (ObservedDelivery<T> delivery : this.reader.deliveries(handler, type, outcome)) {
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

}
