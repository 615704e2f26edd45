package dev.waybill.inbox.observation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.internal.InboxProcessor;
import dev.waybill.inbox.internal.InboxResources;
import dev.waybill.inbox.internal.InboxSettings;
import dev.waybill.inbox.internal.observation.InboxObservation;
import dev.waybill.inbox.spi.DeliveryResult;
import dev.waybill.inbox.spi.InboxDelivery;
import dev.waybill.inbox.test.TestInbox;
import dev.waybill.kernel.WaybillMdc;
import dev.waybill.outbox.RetryPolicy;
import dev.waybill.outbox.observation.DefaultOutboxPublishObservationConvention;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestSchema;

/**
 * The inbox's {@code waybill.inbox.process} observation and MDC entries around a real
 * {@link InboxProcessor} on PostgreSQL.
 */
class InboxObservationIntegrationTests {

	private static TestSchema schema;

	private static TestInbox inbox;

	private final List<ILoggingEvent> processorLog = new CopyOnWriteArrayList<>();

	private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {

		@Override
		protected void append(ILoggingEvent event) {
			event.prepareForDeferredProcessing(); // takes the MDC of the logging thread now
			InboxObservationIntegrationTests.this.processorLog.add(event);
		}

	};

	private final Logger processorLogger = (Logger) LoggerFactory.getLogger(InboxProcessor.class);

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.withWaybillTables("inbox_observation");
		inbox = new TestInbox(schema);
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	private ch.qos.logback.classic.Level processorLevel;

	private boolean levelChanged;

	@AfterEach
	void detach() {
		this.processorLogger.detachAppender(this.appender);
		if (this.levelChanged) {
			this.processorLogger.setLevel(this.processorLevel); // null: inherited again
		}
		MDC.clear();
	}

	@Test
	void theHandlerRunsInsideTheProcessObservationAndWhatItPublishesIsItsChild() {
		List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
		ObservationRegistry registry = recording(stopped);
		AtomicReference<Observation> current = new AtomicReference<>();
		String queue = "observed-" + UUID.randomUUID();
		ConsumerRegistration<Charge> consumer = ConsumerRegistration.of(queue, Charge.class, (charge, context) -> {
			current.set(registry.getCurrentObservation());
			context.publish(new Receipt(charge.order()));
		});
		InboxProcessor processor = processor(registry);
		InboundMessage message = TestInbox.inbound(new Charge("o-1"));

		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.PROCESSED);

		assertThat(stopped).extracting(Observation.Context::getName)
			.containsExactly(DefaultOutboxPublishObservationConvention.NAME, DefaultInboxProcessObservationConvention.NAME);
		Observation.Context process = stopped.get(1);
		assertThat(process).isInstanceOf(InboxProcessContext.class);
		assertThat(current.get().getContext()).isSameAs(process);
		assertThat(stopped.get(0).getParentObservation().getContextView()).isSameAs(process);
		assertThat(process.getContextualName()).isEqualTo("process " + queue);
		assertThat(process.getLowCardinalityKeyValues()).contains(KeyValue.of("waybill.queue", queue),
				KeyValue.of("waybill.message.type", consumer.messageType()), KeyValue.of("waybill.outcome", "processed"));
		assertThat(process.getHighCardinalityKeyValues()).contains(KeyValue.of("messaging.message.id", message.messageId()),
				KeyValue.of("waybill.consumer", queue));
		assertThat(registry.getCurrentObservation()).isNull();
	}

	@Test
	void aHandlersFailureIsTaggedWithItsOutcomeAndNoOtherObservationLeaks() {
		List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
		ObservationRegistry registry = recording(stopped);
		ConsumerRegistration<Charge> failing = ConsumerRegistration.of("observed-" + UUID.randomUUID(), Charge.class,
				(charge, context) -> {
					throw new IllegalStateException("declined");
				});

		assertThat(processor(registry).process(failing, TestInbox.inbound(new Charge("o-2"))))
			.isEqualTo(InboxOutcome.RETRY_SCHEDULED);

		assertThat(stopped).singleElement()
			.satisfies((context) -> assertThat(context.getLowCardinalityKeyValues())
				.contains(KeyValue.of("waybill.outcome", "retry_scheduled")))
			.satisfies((context) -> assertThat(context.getError()).hasMessage("declined"));
	}

	@Test
	void aFailedDeliveryIsAnErrorOfItsObservationInABatchAndAsPoisonAndASuccessIsNot() {
		List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
		ObservationRegistry registry = recording(stopped);
		ConsumerRegistration<Charge> consumer = ConsumerRegistration.of("observed-" + UUID.randomUUID(), Charge.class,
				(charge, context) -> {
					if (charge.order().equals("declined")) {
						throw new IllegalStateException("declined in a batch");
					}
				});
		InboundMessage good = TestInbox.inbound(new Charge("fine"));
		InboundMessage bad = TestInbox.inbound(new Charge("declined"));
		InboundMessage poison = TestInbox.altered(TestInbox.inbound(new Charge("x")), UUID.randomUUID().toString(),
				null, "not json");

		assertThat(processor(registry).processBatch(List.of(new InboxDelivery(consumer, good),
				new InboxDelivery(consumer, bad), new InboxDelivery(consumer, poison))))
			.extracting(DeliveryResult::outcome)
			.containsExactly(InboxOutcome.PROCESSED, InboxOutcome.RETRY_SCHEDULED, InboxOutcome.FAULTED);

		Map<String, Observation.Context> byId = new HashMap<>();
		stopped.forEach((context) -> byId.put(((InboxProcessContext) context).message().messageId(), context));
		assertThat(byId.get(good.messageId()).getError()).isNull();
		assertThat(byId.get(bad.messageId()).getError()).hasMessage("declined in a batch");
		assertThat(byId.get(poison.messageId()).getError()).isNotNull();
		assertThat(byId.get(poison.messageId()).getLowCardinalityKeyValues())
			.contains(KeyValue.of("waybill.outcome", "faulted"));
	}

	@Test
	void theMdcNamesTheDeliveryForTheHandlerAndTheRecordingAndIsRestoredAfter() {
		this.appender.start();
		this.processorLevel = this.processorLogger.getLevel();
		this.levelChanged = true;
		this.processorLogger.setLevel(ch.qos.logback.classic.Level.WARN); // the test configuration silences faults
		this.processorLogger.addAppender(this.appender);
		MDC.put(WaybillMdc.MESSAGE_ID, "the caller's");
		String queue = "observed-" + UUID.randomUUID();
		AtomicReference<Map<String, String>> inHandler = new AtomicReference<>();
		ConsumerRegistration<Charge> consumer = ConsumerRegistration.of(queue, Charge.class,
				(charge, context) -> inHandler.set(MDC.getCopyOfContextMap()));
		InboundMessage message = TestInbox.inbound(new Charge("o-3"));
		InboxProcessor processor = processor(ObservationRegistry.NOOP);

		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.PROCESSED);
		assertThat(inHandler.get()).containsEntry(WaybillMdc.MESSAGE_ID, message.messageId())
			.containsEntry(WaybillMdc.MESSAGE_TYPE, consumer.messageType())
			.containsEntry(WaybillMdc.CONSUMER, queue)
			.containsEntry(WaybillMdc.QUEUE, queue);
		assertThat(MDC.get(WaybillMdc.MESSAGE_ID)).isEqualTo("the caller's");
		assertThat(MDC.get(WaybillMdc.CONSUMER)).isNull();

		// the recording of a poison message logs its WARN line with the entries
		String crafted = UUID.randomUUID().toString();
		InboundMessage unreadable = TestInbox.altered(message, crafted, message.messageType(), "not json");
		assertThat(processor.process(consumer, unreadable)).isEqualTo(InboxOutcome.FAULTED);
		ILoggingEvent line = this.processorLog.stream()
			.filter((event) -> event.getFormattedMessage().contains(crafted))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no line about " + crafted + " in "
					+ this.processorLog.stream().map(ILoggingEvent::getFormattedMessage).toList()));
		assertThat(line.getMDCPropertyMap()).containsEntry(WaybillMdc.MESSAGE_ID, crafted)
			.containsEntry(WaybillMdc.CONSUMER, queue);
	}

	@Test
	void anUntrustedMessageIdIsCutAndCannotBreakTheLogLine() {
		String queue = "observed-" + UUID.randomUUID();
		AtomicReference<Map<String, String>> seen = new AtomicReference<>();
		InboxProcessor processor = processor(ObservationRegistry.NOOP);
		ConsumerRegistration<Charge> consumer = ConsumerRegistration.of(queue, Charge.class, (charge, context) -> {
		});
		String forged = "x".repeat(100) + "\nFAKE LOG LINE";
		InboundMessage message = TestInbox.altered(TestInbox.inbound(new Charge("o-4")), "id\nforged", null, "{}");
		try (WaybillMdc mdc = WaybillMdc.inbox(forged, "t", queue, queue)) {
			seen.set(MDC.getCopyOfContextMap());
		}
		assertThat(seen.get().get(WaybillMdc.MESSAGE_ID)).hasSize(64).doesNotContain("\n");
		assertThat(processor.process(consumer, message)).isEqualTo(InboxOutcome.FAULTED);
		assertThat(MDC.get(WaybillMdc.MESSAGE_ID)).isNull();
	}

	private static ObservationRegistry recording(List<Observation.Context> stopped) {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				stopped.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		return registry;
	}

	private static InboxProcessor processor(ObservationRegistry registry) {
		TestOutbox outbox = TestOutbox.builder(schema.dataSource(), schema.tables())
			.wakeUp(inbox.wakeUp())
			.maxHeaderBytes(() -> 100_000)
			.observations(registry)
			.build();
		RetryPolicy policy = new RetryPolicy(RetryPolicy.Strategy.EXPONENTIAL, Duration.ofMinutes(1), 2,
				Duration.ofMinutes(10), 3, 0);
		return new InboxProcessor(new InboxResources(inbox.transactions().getTransactionManager(), inbox.store(),
				outbox.writer(), outbox.publisher(), outbox.consumerOutbox(), TestOutbox.serializer(), inbox.wakeUp()),
				InboxSettings.of(policy, 0).withObservation(new InboxObservation(registry, null)));
	}

	record Charge(String order) {
	}

	record Receipt(String order) {
	}

}
