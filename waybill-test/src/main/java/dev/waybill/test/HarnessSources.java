package dev.waybill.test;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.outbox.OutboxAdmin;
import dev.waybill.outbox.spi.MessageSerializer;

/**
 * What {@link WaybillTestHarness} reads from. The suppliers are asked on each use, since the
 * consumers, the inbox and the outbox admin are beans the harness may outlive or precede.
 *
 * @param observations what Waybill's listeners recorded
 * @param consumers the application's consumers
 * @param processor the inbox, {@code null} in an application without handlers
 * @param admin the outbox admin, {@code null} without an outbox
 * @param serializer reads and writes message bodies
 * @param inMemory the broker-less transport, {@code null} with a broker
 * @since 0.1
 */
record HarnessSources(Observations observations, Supplier<List<ConsumerRegistration<?>>> consumers,
		Supplier<@Nullable DeliveryProcessor> processor, Supplier<@Nullable OutboxAdmin> admin,
		MessageSerializer serializer, @Nullable InMemoryTransport inMemory) {

	HarnessSources {
		Objects.requireNonNull(observations, "observations must not be null");
		Objects.requireNonNull(consumers, "consumers must not be null");
		Objects.requireNonNull(processor, "processor must not be null");
		Objects.requireNonNull(admin, "admin must not be null");
		Objects.requireNonNull(serializer, "serializer must not be null");
	}

}
