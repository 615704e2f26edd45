package dev.waybill.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;
import org.springframework.core.ResolvableType;

import dev.waybill.inbox.ConsumerRegistrationTests.Lost;
import dev.waybill.inbox.ConsumerRegistrationTests.Parcel;
import dev.waybill.inbox.ConsumerRegistrationTests.Shipped;
import dev.waybill.outbox.MessageType;

class ConsumedTypeTests {

	@Test
	void aClassIsReadAsItselfUnderItsMessageTypeName() {
		assertThat(ConsumedType.of(Shipped.class)).isEqualTo(new ConsumedType(Shipped.class, Shipped.class, "test.shipped"));
	}

	@Test
	void aFaultHandlerNeedsTheFailedMessagesType() {
		assertThatIllegalArgumentException().isThrownBy(() -> ConsumedType.of(Fault.class))
			.withMessageContaining("ConsumerRegistration.ofFault(queue, TheMessage.class, handler)");
	}

	@Test
	void faultsAreReadAsTheParameterizedFaultUnderTheFaultTypeName() {
		ConsumedType type = ConsumedType.ofFault(Shipped.class);

		assertThat(type.payloadClass()).isEqualTo(Fault.class);
		assertThat(type.payloadType()).isEqualTo(ResolvableType.forClassWithGenerics(Fault.class, Shipped.class).getType());
		assertThat(type.messageType()).isEqualTo(Fault.typeName("test.shipped"));
	}

	@Test
	void aFaultTypeNameOver255CharactersIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> ConsumedType.ofFault(LongName.class))
			.withMessageEndingWith("is over 255 characters; shorten its @MessageType");
	}

	@Test
	void aSubtypeIsReadAsItselfUnderTheNameGivenAndOnlyASubtypeIs() {
		ConsumedType parcel = ConsumedType.of(Parcel.class);

		assertThat(parcel.forSubtype("test.lost", Lost.class)).isEqualTo(new ConsumedType(Lost.class, Lost.class, "test.lost"));
		assertThatIllegalArgumentException().isThrownBy(() -> parcel.forSubtype("test.shipped", Shipped.class))
			.withMessageContaining("is not a");
	}

	@MessageType("test.long."
			+ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			+ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + "aaaaa")
	record LongName(String value) {
	}

}
