package dev.waybill.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class EndpointSettingsTests {

	@Test
	void eachWitherChangesOnlyItsSetting() {
		EndpointSettings changed = EndpointSettings.DEFAULTS.withConcurrency(2).withPartitionByOrderingKey(false);

		assertThat(changed).isEqualTo(new EndpointSettings(2, ReceiveEndpoint.DEFAULT_PREFETCH, Map.of(), false, null,
				List.of(), List.of(), List.of(), 1));
		assertThat(EndpointSettings.DEFAULTS.partitionByOrderingKey()).isTrue();
		assertThat(EndpointSettings.DEFAULTS.withPartitions(4).partitions()).isEqualTo(4);
	}

	@Test
	void partitionsAreAtLeastOne() {
		assertThatIllegalArgumentException().isThrownBy(() -> EndpointSettings.DEFAULTS.withPartitions(0))
			.withMessage("partitions must be at least 1, was 0");
	}

	@Test
	void collectionsAreCopiedSoLaterChangesToTheCallersDoNotShowThrough() {
		Map<String, Object> arguments = new HashMap<>(Map.of("x-queue-type", "quorum"));
		List<Class<? extends Throwable>> ignore = new ArrayList<>(List.of(IllegalStateException.class));
		EndpointSettings settings = EndpointSettings.DEFAULTS.withQueueArguments(arguments).withIgnore(ignore);
		arguments.clear();
		ignore.clear();

		assertThat(settings.queueArguments()).containsExactly(Map.entry("x-queue-type", "quorum"));
		assertThat(settings.ignore()).containsExactly(IllegalStateException.class);
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> settings.queueArguments().put("x", 1));
	}

	@Test
	void theDescriptionLeavesOutTheUnsetOptionalSettings() {
		assertThat(EndpointSettings.DEFAULTS.describe())
			.isEqualTo(", concurrency=4, prefetch=32, queueArguments={}, partitionByOrderingKey=true");
		assertThat(EndpointSettings.DEFAULTS.withNeverRetry(List.of(IllegalStateException.class)).describe())
			.contains(", neverRetry=[class java.lang.IllegalStateException], partitionByOrderingKey=true");
	}

}
