package dev.waybill.outbox.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.waybill.outbox.internal.OutboxBacklog;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.test.TestMessages;

/**
 * {@link RelayMetrics}: what the publish latency measures.
 */
class RelayMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final RelayMetrics metrics = new RelayMetrics(new OutboxBacklog());

	RelayMetricsTests() {
		this.metrics.bindTo(this.registry);
	}

	@Test
	void thePublishLatencyOfAMessageRunsFromItsCommit() {
		Instant confirmed = Instant.now();
		this.metrics.published(scope(confirmed.minusMillis(40), TestMessages.message("orders", "a")), confirmed);

		assertThat(latency().max(TimeUnit.MILLISECONDS)).isEqualTo(40);
	}

	@Test
	void thePublishLatencyOfAScheduledMessageRunsFromItsDueTimeNotFromItsCommit() {
		// Before, a message scheduled an hour ahead recorded an hour: one such send made the p99 useless.
		Instant confirmed = Instant.now();
		OutboxMessage scheduled = TestMessages.message("orders", "a", confirmed.minusMillis(30));
		this.metrics.published(scope(confirmed.minus(Duration.ofHours(1)), scheduled), confirmed);

		assertThat(latency().max(TimeUnit.MILLISECONDS)).isEqualTo(30);
	}

	@Test
	void eachStoresScopesAreCountedUnderItsName() {
		Instant confirmed = Instant.now();
		this.metrics.published(scope(confirmed, TestMessages.message("orders", "a")), confirmed);
		this.metrics.published(new ClaimedScope(UUID.randomUUID(), confirmed, 1, "relay/0/7@acme", confirmed,
				List.of(TestMessages.message("orders", "b"), TestMessages.message("orders", "c"))), confirmed);
		this.metrics.released(new ClaimedScope(UUID.randomUUID(), confirmed, 1, "relay/1/8@acme", confirmed,
				List.of(TestMessages.message("orders", "d"))), "broker gone");

		assertThat(this.registry.get(RelayMetrics.PUBLISHED).tag(RelayMetrics.STORE_TAG, "default").counter().count())
			.isEqualTo(1);
		assertThat(this.registry.get(RelayMetrics.PUBLISHED).tag(RelayMetrics.STORE_TAG, "acme").counter().count())
			.isEqualTo(2);
		assertThat(this.registry.get(RelayMetrics.FAILED).tag("cause", "broker").tag(RelayMetrics.STORE_TAG, "acme")
			.counter().count()).isEqualTo(1);
		assertThat(this.registry.get(RelayMetrics.LATENCY).tag(RelayMetrics.STORE_TAG, "acme").timer().count())
			.isEqualTo(1);
	}

	private Timer latency() {
		return this.registry.get(RelayMetrics.LATENCY).timer();
	}

	private static ClaimedScope scope(Instant createdAt, OutboxMessage message) {
		return new ClaimedScope(UUID.randomUUID(), createdAt, 1, "relay", createdAt.plusSeconds(60), List.of(message));
	}

}
