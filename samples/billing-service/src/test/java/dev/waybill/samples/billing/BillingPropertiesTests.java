package dev.waybill.samples.billing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

class BillingPropertiesTests {

	@Test
	void aFailureFractionOutsideZeroToOneIsRefusedNamingTheProperty() {
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> new BillingProperties(1.5))
			.withMessageContaining("billing.first-attempt-failure-fraction")
			.withMessageContaining("must be between 0 and 1");
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> new BillingProperties(-0.1));
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> new BillingProperties(Double.NaN));
	}

	@Test
	void theFractionOfOrdersThatFailTheirFirstAttemptIsAboutTheConfiguredOneAndStable() {
		UUID[] orders = IntStream.range(0, 10_000)
			.mapToObj((i) -> UUID.nameUUIDFromBytes(("order-" + i).getBytes(StandardCharsets.UTF_8)))
			.toArray(UUID[]::new);

		assertThat(failing(orders, 0)).isZero();
		assertThat(failing(orders, 1)).isEqualTo(orders.length);
		assertThat(failing(orders, 0.25)).isBetween(2_250L, 2_750L);
		assertThat(failing(orders, 0.25)).isEqualTo(failing(orders, 0.25));
	}

	private static long failing(UUID[] orders, double fraction) {
		return java.util.Arrays.stream(orders).filter((id) -> OrderPlacedHandler.failsFirstAttempt(id, fraction)).count();
	}

}
