package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;

import com.rabbitmq.client.ConnectionFactory;
import org.junit.jupiter.api.Test;

import dev.waybill.outbox.WaybillThreads;
import dev.waybill.outbox.rabbit.RabbitTopology;

class ReceiveEndpointSettingsTests {

	@Test
	void theDefaultsAndTheirChangedCopies() {
		ReceiveEndpointSettings defaults = ReceiveEndpointSettings.DEFAULTS;

		assertThat(defaults.batchSize()).isEqualTo(16);
		assertThat(defaults.batchLinger()).isEqualTo(Duration.ofMillis(1));
		assertThat(defaults.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
		assertThat(defaults.topologyCheckInterval()).isEqualTo(Duration.ofSeconds(30));
		assertThat(defaults.topology()).isSameAs(RabbitTopology.EMPTY);
		assertThat(defaults.withShutdownTimeout(Duration.ofSeconds(5)).shutdownTimeout()).isEqualTo(Duration.ofSeconds(5));
		assertThat(defaults.withBatch(1, Duration.ZERO)).extracting(ReceiveEndpointSettings::batchSize,
				ReceiveEndpointSettings::batchLinger).containsExactly(1, Duration.ZERO);
	}

	@Test
	void valuesOutsideTheirRangeAreRefused() {
		ReceiveEndpointSettings defaults = ReceiveEndpointSettings.DEFAULTS;

		assertThatIllegalArgumentException().isThrownBy(() -> defaults.withBatch(0, Duration.ZERO))
			.withMessage("maxSize must be at least 1, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.withBatch(1, Duration.ofMillis(-1)))
			.withMessage("linger must not be negative, was PT-0.001S");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.withShutdownTimeout(Duration.ZERO))
			.withMessage("shutdownTimeout must be positive, was PT0S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ReceiveEndpointSettings(RabbitTopology.EMPTY, Duration.ofSeconds(-1),
					WaybillThreads.platform(), Duration.ofSeconds(1), 1, Duration.ZERO, Duration.ofSeconds(1)))
			.withMessage("interval must not be negative: PT-1S");
		assertThatIllegalArgumentException().isThrownBy(() -> defaults.withPredecessorWait(Duration.ZERO))
			.withMessage("predecessorWait must be positive, was PT0S");
	}

	@Test
	void reconnectionBacksOffFromHalfASecondDoublingUpToTheRecoveryInterval() {
		ConnectionFactory factory = new ConnectionFactory();
		factory.setNetworkRecoveryInterval(3000);
		EndpointExecutors executors = new EndpointExecutors(new EndpointStatus(java.util.List.of()), factory);

		assertThat(executors.backoff(0)).isEqualTo(500);
		assertThat(executors.backoff(1)).isEqualTo(500);
		assertThat(executors.backoff(2)).isEqualTo(1000);
		assertThat(executors.backoff(3)).isEqualTo(2000);
		assertThat(executors.backoff(4)).isEqualTo(3000);
		assertThat(executors.backoff(100)).isEqualTo(3000);
	}

}
