package dev.waybill.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ConsumerSettingsTests {

	@Test
	void eachWitherChangesOnlyItsSetting() {
		ConsumerSettings changed = ConsumerSettings.DEFAULTS.withConcurrency(2).withPartitionByOrderingKey(false);

		assertThat(changed).isEqualTo(new ConsumerSettings(2, ConsumerRegistration.DEFAULT_PREFETCH, Map.of(), false, null,
				List.of(), List.of(), List.of()));
		assertThat(ConsumerSettings.DEFAULTS.partitionByOrderingKey()).isTrue();
	}

	@Test
	void collectionsAreCopiedSoLaterChangesToTheCallersDoNotShowThrough() {
		Map<String, Object> arguments = new HashMap<>(Map.of("x-queue-type", "quorum"));
		List<Class<? extends Throwable>> ignore = new ArrayList<>(List.of(IllegalStateException.class));
		ConsumerSettings settings = ConsumerSettings.DEFAULTS.withQueueArguments(arguments).withIgnore(ignore);
		arguments.clear();
		ignore.clear();

		assertThat(settings.queueArguments()).containsExactly(Map.entry("x-queue-type", "quorum"));
		assertThat(settings.ignore()).containsExactly(IllegalStateException.class);
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> settings.queueArguments().put("x", 1));
	}

	@Test
	void theDescriptionLeavesOutTheUnsetOptionalSettings() {
		assertThat(ConsumerSettings.DEFAULTS.describe())
			.isEqualTo(", concurrency=4, prefetch=32, queueArguments={}, partitionByOrderingKey=true");
		assertThat(ConsumerSettings.DEFAULTS.withNeverRetry(List.of(IllegalStateException.class)).describe())
			.contains(", neverRetry=[class java.lang.IllegalStateException], partitionByOrderingKey=true");
	}

}
