package dev.waybill.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.test.TestMessages;

class OutboxScopeTests {

	@Test
	void isDueAtTheLatestNotBeforeOfItsMessages() {
		Instant soon = Instant.parse("2030-01-01T00:00:00Z");
		Instant later = Instant.parse("2030-01-02T00:00:00Z");
		OutboxScope scope = new OutboxScope(UUID.randomUUID(), List.of(TestMessages.message("a", "1", later),
				TestMessages.message("a", "2"), TestMessages.message("a", "3", soon)), null, null);
		assertThat(scope.notBefore()).isEqualTo(later);
		assertThat(TestMessages.scope("a", "1").notBefore()).isNull();
	}

	@Test
	void needsMessagesAndBothConsumerFieldsOrNeither() {
		assertThatIllegalArgumentException().isThrownBy(() -> new OutboxScope(UUID.randomUUID(), List.of(), null, null))
			.withMessageContaining("at least one message");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new OutboxScope(UUID.randomUUID(), List.of(TestMessages.message("a", "1")), UUID.randomUUID(), null))
			.withMessageContaining("together");
	}

}
