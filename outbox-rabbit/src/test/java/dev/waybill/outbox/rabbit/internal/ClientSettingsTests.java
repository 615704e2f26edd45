package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;

import com.rabbitmq.client.ConnectionFactory;
import org.junit.jupiter.api.Test;

class ClientSettingsTests {

	@Test
	void theSettingsGoOnTheFactoryWithAutomaticRecovery() {
		ConnectionFactory factory = new ConnectionFactory();
		factory.setAutomaticRecoveryEnabled(false);
		new ClientSettings(Duration.ofMillis(1500), Duration.ofMillis(700), 8192).applyTo(factory);

		assertThat(factory.getConnectionTimeout()).isEqualTo(1500);
		assertThat(factory.getHandshakeTimeout()).isEqualTo(1500);
		assertThat(factory.getChannelRpcTimeout()).isEqualTo(1500);
		assertThat(factory.isAutomaticRecoveryEnabled()).isTrue();
		assertThat(factory.isTopologyRecoveryEnabled()).isTrue();
		assertThat(factory.getNetworkRecoveryInterval()).isEqualTo(700);
		assertThat(factory.getRequestedFrameMax()).isEqualTo(8192);
		assertThat(factory.getExceptionHandler()).isInstanceOf(ClientExceptionHandler.class);
	}

	@Test
	void outOfRangeSettingsAreRefusedNamingThem() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ClientSettings(Duration.ZERO, Duration.ofSeconds(5), 131072))
			.withMessageContaining("connectionTimeout must be positive");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ClientSettings(Duration.ofSeconds(5), Duration.ofSeconds(-1), 131072))
			.withMessageContaining("recoveryInterval must be positive");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ClientSettings(Duration.ofSeconds(5), Duration.ofSeconds(5), 4095))
			.withMessage("frameMax must be at least 4096 bytes, was 4095");
	}

}
