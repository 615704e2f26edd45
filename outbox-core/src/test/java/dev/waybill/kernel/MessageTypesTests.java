package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import org.junit.jupiter.api.Test;

import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.MessageType;

class MessageTypesTests {

	@Test
	void theSupertypesAreTheAnnotatedSuperclassesAndInterfacesNearestFirst() {
		assertThat(MessageTypes.supertypesOf(Refunded.class)).containsExactly("test.payment-event", "test.event",
				"test.order-event");
		assertThat(MessageTypes.supertypesOf(Annotated.class)).isEmpty();
	}

	@MessageType("test.event")
	interface Event {

	}

	@MessageType("test.order-event")
	interface OrderEvent extends Event, java.io.Serializable {

	}

	interface Unannotated extends OrderEvent {

	}

	@MessageType("test.payment-event")
	abstract static class PaymentEvent implements Event {

	}

	@MessageType("test.refunded")
	static final class Refunded extends PaymentEvent implements Unannotated {

	}

	@Test
	void usesTheAnnotatedName() {
		assertThat(MessageTypes.nameOf(Annotated.class)).isEqualTo("orders.order-placed:v2");
		assertThat(MessageTypes.nameOf(new Annotated())).isEqualTo("orders.order-placed:v2");
	}

	@Test
	void defaultsToTheCanonicalNameWhichIsStableForNestedClasses() {
		assertThat(MessageTypes.nameOf(Plain.class)).isEqualTo("dev.waybill.kernel.MessageTypesTests.Plain");
		assertThat(MessageTypes.nameOf(String.class)).isEqualTo("java.lang.String");
	}

	@Test
	void rejectsAnAnnotatedNameABrokerWouldRefuse() {
		assertThatExceptionOfType(InvalidMessageException.class).isThrownBy(() -> MessageTypes.nameOf(BadName.class))
			.withMessageContaining("@MessageType on " + BadName.class.getName())
			.withMessageContaining("1 to 255 letters, digits");
	}

	@Test
	void rejectsAnAnonymousClassAndSaysToAnnotateIt() {
		Object anonymous = new Object() {
		};
		assertThatExceptionOfType(InvalidMessageException.class).isThrownBy(() -> MessageTypes.nameOf(anonymous))
			.withMessageContaining("no stable name")
			.withMessageContaining("@MessageType");
	}

	@MessageType("orders.order-placed:v2")
	static class Annotated {

	}

	static class Plain {

	}

	@MessageType("orders/placed")
	static class BadName {

	}

}
