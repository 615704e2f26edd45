package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

class HostNamesTests {

	@Test
	void prefersHostnameThenComputername() {
		assertThat(HostNames.resolve(Map.of("HOSTNAME", " worker-1 ", "COMPUTERNAME", "WIN"))).isEqualTo("worker-1");
		assertThat(HostNames.resolve(Map.of("HOSTNAME", " ", "COMPUTERNAME", "WIN-2"))).isEqualTo("WIN-2");
	}

	@Test
	void fallsBackToTheNetworkName() {
		assertThat(HostNames.resolve(Map.of())).isNotBlank();
	}

}
