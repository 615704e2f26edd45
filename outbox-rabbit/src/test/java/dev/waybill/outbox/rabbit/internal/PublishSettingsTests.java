package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.waybill.outbox.rabbit.RabbitTopology;

class PublishSettingsTests {

	@Test
	void theDefaultsAreRabbitMqs() {
		assertThat(PublishSettings.DEFAULTS).isEqualTo(new PublishSettings(Duration.ofSeconds(10), 1000, "fanout",
				128L * 1024 * 1024, RabbitTopology.EMPTY, false));
	}

	@Test
	void outOfRangeSettingsAreRefusedNamingThem() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new PublishSettings(Duration.ZERO, 1, "fanout", 1, RabbitTopology.EMPTY, false))
			.withMessageContaining("confirmTimeout must be positive");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new PublishSettings(Duration.ofSeconds(1), 0, "fanout", 1, RabbitTopology.EMPTY, false))
			.withMessage("maxOutstandingConfirms must be at least 1, was 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new PublishSettings(Duration.ofSeconds(1), 1, "x-delayed", 1, RabbitTopology.EMPTY, false))
			.withMessageContaining("exchangeType must be one of");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new PublishSettings(Duration.ofSeconds(1), 1, "topic", 0, RabbitTopology.EMPTY, false))
			.withMessage("maxBodySize must be at least 1 byte, was 0");
	}

}
