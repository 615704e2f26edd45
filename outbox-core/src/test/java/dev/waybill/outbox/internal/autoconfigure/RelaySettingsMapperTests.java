package dev.waybill.outbox.internal.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import dev.waybill.outbox.autoconfigure.OutboxProperties;
import dev.waybill.outbox.internal.relay.RelaySettings;

class RelaySettingsMapperTests {

	@Test
	void thePropertiesDefaultsAreTheRelaysDefaults() {
		assertThat(RelaySettingsMapper.toRelaySettings(new OutboxProperties())).isEqualTo(RelaySettings.defaults());
	}

	@Test
	void eachGroupReachesTheSettings() {
		OutboxProperties outbox = new OutboxProperties();
		outbox.getRelay().setWorkers(5);
		outbox.getRetry().setMaxAttempts(3);
		outbox.getCircuitBreaker().setCoolDown(Duration.ofSeconds(9));

		RelaySettings settings = RelaySettingsMapper.toRelaySettings(outbox);

		assertThat(settings.workers()).isEqualTo(5);
		assertThat(settings.retry().maxAttempts()).isEqualTo(3);
		assertThat(settings.coolDown()).isEqualTo(Duration.ofSeconds(9));
	}

	@Test
	void anInvalidValueIsRefusedNamingItsProperty() {
		OutboxProperties outbox = new OutboxProperties();
		outbox.getCircuitBreaker().setFailureThreshold(0);

		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> RelaySettingsMapper.toRelaySettings(outbox))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("waybill.outbox.circuit-breaker.failure-threshold"))
			.withMessageContaining("at least 1");
	}

}
