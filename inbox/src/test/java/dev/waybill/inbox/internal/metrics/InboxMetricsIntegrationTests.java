package dev.waybill.inbox.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.internal.InboxProcessor;
import dev.waybill.inbox.internal.InboxResources;
import dev.waybill.inbox.internal.InboxSettings;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestSchema;

/**
 * {@link InboxMetrics} read from a {@link SimpleMeterRegistry} while a real {@link InboxProcessor}
 * handles deliveries on PostgreSQL.
 */
class InboxMetricsIntegrationTests {

	private static TestSchema schema;

	private static TestInbox inbox;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("inbox_metrics");
		inbox = new TestInbox(schema);
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@Test
	void everyOutcomeIsCountedAndTimedPerQueueAndTypeAndInFlightIsGauged() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		InboxMetrics metrics = new InboxMetrics();
		metrics.bindTo(registry);
		InboxProcessor processor = processor(metrics);
		String queue = "metrics-" + UUID.randomUUID();
		AtomicReference<Double> inFlightWhileHandling = new AtomicReference<>();
		ConsumerRegistration<Charge> ok = ConsumerRegistration.of(queue, Charge.class, (message, context) -> {
			Gauge gauge = registry.get(InboxMetrics.IN_FLIGHT).tag("queue", queue).gauge();
			inFlightWhileHandling.set(gauge.value());
		});
		InboundMessage first = TestInbox.inbound(new Charge("o-1"));

		assertThat(processor.process(ok, first)).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(processor.process(ok, first)).isEqualTo(InboxOutcome.DUPLICATE);

		String failingQueue = queue + "-failing";
		ConsumerRegistration<Charge> failing = ConsumerRegistration.of(failingQueue, Charge.class, (message, context) -> {
			throw new IllegalStateException("declined");
		});
		InboundMessage second = TestInbox.inbound(new Charge("o-2"));
		assertThat(processor.process(failing, second)).isEqualTo(InboxOutcome.RETRY_SCHEDULED);
		assertThat(processor.process(failing, second)).isEqualTo(InboxOutcome.FAULTED);
		assertThat(processor.process(failing, second)).isEqualTo(InboxOutcome.ALREADY_FAULTED);

		String type = ok.messageType();
		assertThat(inFlightWhileHandling.get()).isEqualTo(1.0);
		assertThat(count(registry, queue, type, "processed")).isEqualTo(1);
		assertThat(count(registry, queue, type, "duplicate")).isEqualTo(1);
		assertThat(count(registry, failingQueue, type, "retry_scheduled")).isEqualTo(1);
		assertThat(count(registry, failingQueue, type, "faulted")).isEqualTo(1);
		assertThat(count(registry, failingQueue, type, "already_faulted")).isEqualTo(1);
		assertThat(registry.find(InboxMetrics.POISON).counters()).as("a handler's failure is no poison").isEmpty();
		Timer processed = registry.get(InboxMetrics.HANDLING)
			.tags("queue", queue, "type", type, "outcome", "processed")
			.timer();
		assertThat(processed.count()).isEqualTo(1);
		assertThat(processed.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS)).isPositive();
		assertThat(registry.get(InboxMetrics.HANDLING).tag("queue", failingQueue).timers()).hasSize(3);
		assertThat(registry.get(InboxMetrics.IN_FLIGHT).tag("queue", queue).gauge().value()).isZero();
		assertThat(registry.get(InboxMetrics.IN_FLIGHT).tag("queue", failingQueue).gauge().value()).isZero();
		assertThat(registry.getMeters()).extracting((meter) -> meter.getId().getName())
			.allMatch((name) -> name.matches("waybill\\.inbox\\.[a-z.]+"));
	}

	@Test
	void aFaultWithoutIdIsCountedUnderTheConsumersTypeNotTheInboundOne() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		InboxMetrics metrics = new InboxMetrics();
		metrics.bindTo(registry);
		String queue = "metrics-" + UUID.randomUUID();
		ConsumerRegistration<Charge> ok = ConsumerRegistration.of(queue, Charge.class, (message, context) -> {
		});
		InboundMessage crafted = TestInbox.altered(TestInbox.inbound(new Charge("o-3")), UUID.randomUUID().toString(),
				"crafted-" + UUID.randomUUID(), "{}");

		assertThat(processor(metrics).process(ok, crafted)).isEqualTo(InboxOutcome.FAULTED);

		assertThat(count(registry, queue, ok.messageType(), "faulted")).isEqualTo(1);
		assertThat(registry.getMeters()).extracting(Meter::getId)
			.allMatch((id) -> ok.messageType().equals(id.getTag("type")));
	}

	@Test
	void poisonIsCountedPerQueueAndTypeWhateverMadeIt() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		InboxMetrics metrics = new InboxMetrics();
		metrics.bindTo(registry);
		String queue = "metrics-" + UUID.randomUUID();
		ConsumerRegistration<Charge> ok = ConsumerRegistration.of(queue, Charge.class, (message, context) -> {
		});
		InboundMessage valid = TestInbox.inbound(new Charge("o-4"));
		InboundMessage noId = TestInbox.altered(valid, null, valid.messageType(), "{\"order\":\"o-5\"}");
		InboundMessage otherType = TestInbox.altered(valid, UUID.randomUUID().toString(), "another-type",
				"{\"order\":\"o-6\"}");
		InboundMessage unreadable = TestInbox.altered(valid, UUID.randomUUID().toString(), valid.messageType(), "not json");
		InboxProcessor processor = processor(metrics);

		for (InboundMessage poison : java.util.List.of(noId, otherType, unreadable)) {
			assertThat(processor.process(ok, poison)).isEqualTo(InboxOutcome.FAULTED);
		}
		assertThat(processor.process(ok, valid)).isEqualTo(InboxOutcome.PROCESSED);

		assertThat(registry.get(InboxMetrics.POISON).tags("queue", queue, "type", ok.messageType()).counter().count())
			.isEqualTo(3);
		assertThat(count(registry, queue, ok.messageType(), "faulted")).isEqualTo(3);
		assertThat(registry.get(InboxMetrics.POISON).counter().getId().getBaseUnit()).isEqualTo("messages");
	}

	@Test
	void aKeyedDeliveryHandledWithoutItsPredecessorIsCountedAsAnOrderingGapAndReceivedTellsWhatTheInboxHas() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		InboxMetrics metrics = new InboxMetrics();
		metrics.bindTo(registry);
		String queue = "metrics-" + UUID.randomUUID();
		ConsumerRegistration<Charge> ok = ConsumerRegistration.of(queue, Charge.class, (message, context) -> {
		});
		InboundMessage predecessor = TestInbox.inbound(new Charge("o-7"));
		InboundMessage next = TestInbox.inbound(new Charge("o-8"));
		InboxProcessor processor = processor(metrics);
		assertThat(processor.received(ok, predecessor.messageId())).isFalse();
		assertThat(processor.received(ok, "not-a-uuid")).isFalse();

		processor.predecessorMissing(ok, next, predecessor.messageId());
		assertThat(processor.process(ok, predecessor)).isEqualTo(InboxOutcome.PROCESSED);

		assertThat(registry.get(InboxMetrics.ORDERING_GAPS).tags("queue", queue, "type", ok.messageType()).counter()
			.count()).isEqualTo(1);
		assertThat(processor.received(ok, predecessor.messageId())).isTrue();
		assertThat(processor.received(ConsumerRegistration.of(queue + "-other", Charge.class, (message, context) -> {
		}), predecessor.messageId())).as("another consumer's inbox").isFalse();
	}

	private static double count(SimpleMeterRegistry registry, String queue, String type, String outcome) {
		return registry.get(InboxMetrics.DELIVERIES).tags("queue", queue, "type", type, "outcome", outcome).counter().count();
	}

	private static InboxProcessor processor(InboxMetrics metrics) {
		RetryPolicy policy = new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL, Duration.ofMinutes(1), 2,
				Duration.ofMinutes(10), 2, 0);
		return new InboxProcessor(new InboxResources(inbox.transactions().getTransactionManager(), inbox.store(),
				inbox.writer(), inbox.publisher(), inbox.consumerOutbox(), TestOutbox.serializer(), inbox.wakeUp()), InboxSettings.of(policy, 0).withListener(metrics));
	}

	record Charge(String order) {
	}

}
