package dev.waybill.integration.observation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.BaggageInScope;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration;
import org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.waybill.inbox.Consumer;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.kernel.WaybillMdc;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitAutoConfiguration;
import dev.waybill.outbox.rabbit.autoconfigure.WaybillRabbitInboxAutoConfiguration;
import dev.waybill.outbox.rabbit.test.CapturedLogs;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestTracing;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * One trace from the business transaction to the last consumer, on PostgreSQL and RabbitMQ, with a
 * real tracer (Micrometer Tracing over the OpenTelemetry SDK): a request publishes an order, the
 * relay publishes it, the billing consumer handles it and publishes a payment through its consumer
 * outbox, the relay publishes that, and the ledger consumer handles it. Without a tracer the
 * messages carry no trace context and everything still flows; the handlers' log lines carry the
 * MDC entries either way.
 */
class TracingIntegrationTests {

	static final String ORDER_TYPE = "waybill-test.trace.order";

	static final String PAYMENT_TYPE = "waybill-test.trace.payment";

	static final String BILLING_QUEUE = "waybill-test.trace.billing";

	static final String LEDGER_QUEUE = "waybill-test.trace.ledger";

	/** The headers each handler saw, by order id. */
	static final Map<UUID, Map<String, Object>> billingHeaders = new ConcurrentHashMap<>();

	static final Map<UUID, Map<String, Object>> ledgerHeaders = new ConcurrentHashMap<>();

	private TestSchema schema;

	private Connection rabbit;

	@BeforeEach
	void setUp() throws Exception {
		billingHeaders.clear();
		ledgerHeaders.clear();
		this.schema = TestSchema.create("tracing");
		this.rabbit = TestRabbit.get().connect();
		deleteTopology();
	}

	@AfterEach
	void tearDown() throws Exception {
		deleteTopology();
		this.rabbit.close();
		this.schema.close();
	}

	@Test
	void oneTraceCoversTheRequestTheRelayBothConsumersAndWhatTheFirstPublished() {
		try (TestTracing tracing = new TestTracing()) {
			service().withBean(ObservationRegistry.class, tracing::registry).run((context) -> {
				assertThat(context).hasNotFailed();
				UUID order = UUID.randomUUID();
				Observation request = Observation.start("test.request", tracing.registry());
				try (Observation.Scope scope = request.openScope();
						BaggageInScope baggage = tracing.tracer().createBaggageInScope(TestTracing.BAGGAGE_FIELD, "acme")) {
					publish(context, new TracedOrder(order));
				}
				finally {
					request.stop();
				}
				await().until(() -> ledgerHeaders.containsKey(order));
				await().until(() -> tracing.spans().size() >= 7);

				SpanData root = span(tracing, "test.request");
				SpanData createOrder = span(tracing, "create " + ORDER_TYPE);
				SpanData publishOrder = span(tracing, "publish " + ORDER_TYPE);
				SpanData billing = span(tracing, "process " + BILLING_QUEUE);
				SpanData createPayment = span(tracing, "create " + PAYMENT_TYPE);
				SpanData publishPayment = span(tracing, "publish " + PAYMENT_TYPE);
				SpanData ledger = span(tracing, "process " + LEDGER_QUEUE);

				assertThat(List.of(createOrder, publishOrder, billing, createPayment, publishPayment, ledger))
					.extracting(SpanData::getTraceId)
					.containsOnly(root.getTraceId());
				assertThat(createOrder.getParentSpanId()).isEqualTo(root.getSpanId());
				assertThat(publishOrder.getParentSpanId()).isEqualTo(createOrder.getSpanId());
				assertThat(billing.getParentSpanId()).isEqualTo(createOrder.getSpanId());
				assertThat(createPayment.getParentSpanId()).isEqualTo(billing.getSpanId());
				assertThat(publishPayment.getParentSpanId()).isEqualTo(createPayment.getSpanId());
				assertThat(ledger.getParentSpanId()).isEqualTo(createPayment.getSpanId());

				assertThat(List.of(createOrder, publishOrder, createPayment, publishPayment)).extracting(SpanData::getKind)
					.containsOnly(SpanKind.PRODUCER);
				assertThat(List.of(billing, ledger)).extracting(SpanData::getKind).containsOnly(SpanKind.CONSUMER);

				String orderMessageId = storedMessageId(ORDER_TYPE);
				assertThat(attributes(publishOrder)).containsEntry("messaging.destination.name", ORDER_TYPE)
					.containsEntry("waybill.message.type", ORDER_TYPE)
					.containsEntry("messaging.message.id", orderMessageId)
					.containsKey("waybill.scope.id");
				assertThat(attributes(createOrder)).containsEntry("messaging.message.id", orderMessageId)
					.containsEntry("waybill.message.type", ORDER_TYPE);
				assertThat(attributes(billing)).containsEntry("waybill.queue", BILLING_QUEUE)
					.containsEntry("waybill.message.type", ORDER_TYPE)
					.containsEntry("waybill.outcome", "processed")
					.containsEntry("messaging.message.id", orderMessageId);

				// stored in the business transaction and carried by the AMQP message
				String traceparent = "00-" + root.getTraceId() + "-" + createOrder.getSpanId() + "-";
				assertThat(storedHeaders(ORDER_TYPE)).contains("\"traceparent\": \"" + traceparent)
					.contains("tenant=acme");
				assertThat((String) billingHeaders.get(order).get("traceparent")).startsWith(traceparent);
				assertThat((String) billingHeaders.get(order).get("baggage")).contains("tenant=acme");
				assertThat((String) ledgerHeaders.get(order).get("traceparent"))
					.startsWith("00-" + root.getTraceId() + "-" + createPayment.getSpanId() + "-");
			});
		}
	}

	@Test
	void springBootsTracingAutoConfigurationIsAllItTakes() {
		InMemorySpanExporter exporter = InMemorySpanExporter.create();
		service().withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
				OpenTelemetrySdkAutoConfiguration.class, OpenTelemetryTracingAutoConfiguration.class,
				MicrometerTracingAutoConfiguration.class))
			.withBean(SpanExporter.class, () -> exporter)
			.withPropertyValues("management.tracing.sampling.probability=1.0")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ObservationRegistry registry = context.getBean(ObservationRegistry.class);
				UUID order = UUID.randomUUID();
				Observation.createNotStarted("test.request", registry).observe(() -> publish(context, new TracedOrder(order)));
				await().until(() -> ledgerHeaders.containsKey(order));
				await().until(() -> exporter.getFinishedSpanItems().size() >= 7);
				List<SpanData> spans = exporter.getFinishedSpanItems();
				SpanData root = named(spans, "test.request");
				SpanData createOrder = named(spans, "create " + ORDER_TYPE);
				SpanData billing = named(spans, "process " + BILLING_QUEUE);
				SpanData createPayment = named(spans, "create " + PAYMENT_TYPE);
				assertThat(spans).extracting(SpanData::getTraceId).containsOnly(root.getTraceId());
				assertThat(createOrder.getParentSpanId()).isEqualTo(root.getSpanId());
				assertThat(named(spans, "publish " + ORDER_TYPE).getParentSpanId()).isEqualTo(createOrder.getSpanId());
				assertThat(billing.getParentSpanId()).isEqualTo(createOrder.getSpanId());
				assertThat(createPayment.getParentSpanId()).isEqualTo(billing.getSpanId());
				assertThat(named(spans, "publish " + PAYMENT_TYPE).getParentSpanId()).isEqualTo(createPayment.getSpanId());
				assertThat(named(spans, "process " + LEDGER_QUEUE).getParentSpanId()).isEqualTo(createPayment.getSpanId());
			});
	}

	@Test
	void withoutATracerMessagesCarryNoTraceContextAndHandlersLogWithTheMdcEntries() {
		try (CapturedLogs logs = CapturedLogs.capture(Level.INFO, BillingHandler.class.getName())) {
			service().run((context) -> {
				assertThat(context).hasNotFailed();
				UUID order = UUID.randomUUID();
				publish(context, new TracedOrder(order));
				await().until(() -> ledgerHeaders.containsKey(order));

				assertThat(billingHeaders.get(order)).doesNotContainKeys("traceparent", "tracestate", "baggage");
				assertThat(ledgerHeaders.get(order)).doesNotContainKeys("traceparent", "tracestate", "baggage");
				assertThat(storedHeaders(ORDER_TYPE)).doesNotContain("traceparent");

				ILoggingEvent line = logs.events().stream()
					.filter((event) -> event.getFormattedMessage().contains("charging " + order))
					.findFirst()
					.orElseThrow();
				assertThat(line.getMDCPropertyMap()).containsEntry(WaybillMdc.MESSAGE_ID, storedMessageId(ORDER_TYPE))
					.containsEntry(WaybillMdc.MESSAGE_TYPE, ORDER_TYPE)
					.containsEntry(WaybillMdc.CONSUMER, BILLING_QUEUE)
					.containsEntry(WaybillMdc.QUEUE, BILLING_QUEUE);
			});
		}
		assertThat(org.slf4j.MDC.get(WaybillMdc.MESSAGE_ID)).isNull();
	}

	private ApplicationContextRunner service() {
		TestRabbit rabbit = TestRabbit.get();
		return WaybillContext.runner(this.schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class,
					WaybillInboxAutoConfiguration.class, WaybillRabbitInboxAutoConfiguration.class))
			.withUserConfiguration(Handlers.class)
			.withPropertyValues("spring.rabbitmq.host=" + rabbit.host(), "spring.rabbitmq.port=" + rabbit.port(),
					"spring.rabbitmq.username=" + rabbit.username(), "spring.rabbitmq.password=" + rabbit.password(),
					"waybill.outbox.relay.poll-interval=200ms", "spring.datasource.hikari.maximum-pool-size=5");
	}

	private static void publish(AssertableApplicationContext context, Object message) {
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.executeWithoutResult((status) -> context.getBean(OutboxPublisher.class).publish(message));
	}

	private static SpanData span(TestTracing tracing, String name) {
		return named(tracing.spans(), name);
	}

	private static SpanData named(List<SpanData> spans, String name) {
		Optional<SpanData> span = spans.stream().filter((candidate) -> candidate.getName().equals(name)).findFirst();
		assertThat(span).as("span '%s' among %s", name, spans.stream().map(SpanData::getName).toList()).isPresent();
		return span.get();
	}

	private static Map<String, String> attributes(SpanData span) {
		Map<String, String> attributes = new java.util.HashMap<>();
		span.getAttributes().forEach((key, value) -> attributes.put(key.getKey(), String.valueOf(value)));
		return attributes;
	}

	private String storedMessageId(String type) {
		return jdbc().queryForObject("SELECT message_id::text FROM " + this.schema.name()
				+ ".outbox_message WHERE message_type = ?", String.class, type);
	}

	private String storedHeaders(String type) {
		return jdbc().queryForObject("SELECT headers::text FROM " + this.schema.name()
				+ ".outbox_message WHERE message_type = ?", String.class, type);
	}

	private JdbcTemplate jdbc() {
		return new JdbcTemplate(this.schema.dataSource());
	}

	private void deleteTopology() throws Exception {
		try (Channel channel = this.rabbit.createChannel()) {
			for (String queue : List.of(BILLING_QUEUE, BILLING_QUEUE + "_error", LEDGER_QUEUE, LEDGER_QUEUE + "_error")) {
				channel.queueDelete(queue);
			}
			for (String exchange : List.of(ORDER_TYPE, PAYMENT_TYPE)) {
				channel.exchangeDelete(exchange);
			}
		}
	}

	private static ConditionFactory await() {
		return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50));
	}

	@MessageType(ORDER_TYPE)
	record TracedOrder(UUID id) {
	}

	@MessageType(PAYMENT_TYPE)
	record TracedPayment(UUID orderId) {
	}

	@Consumer(queue = BILLING_QUEUE)
	static class BillingHandler implements MessageHandler<TracedOrder> {

		private static final Logger logger = LoggerFactory.getLogger(BillingHandler.class);

		@Override
		public void handle(TracedOrder order, MessageContext context) {
			logger.info("charging " + order.id());
			billingHeaders.put(order.id(), Map.copyOf(context.headers()));
			context.publish(new TracedPayment(order.id()));
		}

	}

	@Consumer(queue = LEDGER_QUEUE)
	static class LedgerHandler implements MessageHandler<TracedPayment> {

		@Override
		public void handle(TracedPayment payment, MessageContext context) {
			ledgerHeaders.put(payment.orderId(), Map.copyOf(context.headers()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Handlers {

		@Bean
		BillingHandler billingHandler() {
			return new BillingHandler();
		}

		@Bean
		LedgerHandler ledgerHandler() {
			return new LedgerHandler();
		}

	}

}
