package dev.waybill.inbox.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.ResolvableType;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.Fault;
import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.MessageHandler;
import dev.waybill.inbox.spi.ConsumerRegistry;
import dev.waybill.inbox.test.InboxContext;
import dev.waybill.outbox.MessageType;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.test.TestOutbox;
import dev.waybill.outbox.test.TestSchema;

/**
 * Handlers of {@link Fault} events: bound to the fault type of their message type, their bodies
 * read with the generic argument.
 */
class FaultHandlerDiscoveryTests {

	private static TestSchema schema;

	private static ApplicationContextRunner runner;

	@BeforeAll
	static void createSchema() {
		schema = TestSchema.create("inbox_faults");
		runner = InboxContext.runner(schema);
	}

	@AfterAll
	static void dropSchema() {
		schema.close();
	}

	@Test
	void aFaultHandlerIsBoundToTheFaultTypeOfItsMessageType() {
		runner.withUserConfiguration(ChargeFaultHandler.class).run((context) -> {
			assertThat(context).hasNotFailed();
			ConsumerRegistration<?> registration = context.getBean(ConsumerRegistry.class).registrations().get(0);
			assertThat(registration.queue()).isEqualTo("charge-fault-handler");
			assertThat(registration.messageType()).isEqualTo("fault:test.charge").isEqualTo(Fault.typeName("test.charge"));
			assertThat(registration.payloadClass()).isEqualTo(Fault.class);
			assertThat(ResolvableType.forType(registration.payloadType()).getGeneric(0).resolve()).isEqualTo(Charge.class);
		});
	}

	@Test
	void aFaultHandlerWithoutItsMessageTypeFailsStartupNamingTheBean() {
		runner.withUserConfiguration(WildcardFaultHandler.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("handles Fault without saying of which message type")
				.hasMessageContaining("MessageHandler<Fault<YourMessage>>");
		});
	}

	@Test
	void aRawFaultRegistrationByHandIsRefused() {
		@SuppressWarnings({ "rawtypes", "unchecked" })
		MessageHandler<Fault> raw = (fault, context) -> {
		};
		assertThatIllegalArgumentException().isThrownBy(() -> ConsumerRegistration.of("faults", Fault.class, raw))
			.withMessageContaining("ConsumerRegistration.ofFault");
	}

	@Test
	void theDefaultSerializerReadsAFaultWithItsTypedMessage() throws Exception {
		MessageSerializer serializer = TestOutbox.serializer();
		Fault<Charge> fault = new Fault<>(new Charge("order-1", 250), UUID.randomUUID(), "test.charge", "corr", "conv",
				"billing", "host-1", Instant.parse("2026-01-02T03:04:05Z"), 3, "java.lang.IllegalStateException",
				"declined", "trace");
		ConsumerRegistration<Fault<Charge>> registration = ConsumerRegistration.ofFault("charge-faults", Charge.class,
				(f, c) -> {
				});

		Object read = serializer.deserialize(serializer.serialize(fault), registration.payloadType());

		assertThat(read).isEqualTo(fault);
		assertThat(((Fault<?>) read).message()).isInstanceOf(Charge.class);
	}

	@MessageType("test.charge")
	record Charge(String order, long cents) {
	}

	static class ChargeFaultHandler implements MessageHandler<Fault<Charge>> {

		@Override
		public void handle(Fault<Charge> fault, MessageContext context) {
		}

	}

	static class WildcardFaultHandler implements MessageHandler<Fault<?>> {

		@Override
		public void handle(Fault<?> fault, MessageContext context) {
		}

	}

}
