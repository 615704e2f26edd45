package dev.waybill.inbox.internal;

import java.util.Objects;

import org.springframework.transaction.PlatformTransactionManager;

import dev.waybill.inbox.MessageContext;
import dev.waybill.inbox.internal.jdbc.InboxStore;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.OutboxPublisher;
import dev.waybill.outbox.spi.ConsumerOutbox;
import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.spi.OutboxWriter;

/**
 * What an {@link InboxProcessor} works with: the database, the outbox and the serializer.
 *
 * @param transactionManager the application's transaction manager; it must manage the DataSource
 * of the inbox store and the outbox writer
 * @param store the inbox table
 * @param writer writes redeliveries and faults to the outbox in the inbox transaction
 * @param publisher publishes what handlers publish through {@link MessageContext}
 * @param consumerOutbox ties a handler's publications to the inbound message (the default
 * publisher implements it)
 * @param serializer reads message bodies into payloads
 * @param wakeUp signalled after a redelivery or fault is committed
 * @since 0.1
 */
public record InboxResources(PlatformTransactionManager transactionManager, InboxStore store, OutboxWriter writer,
		OutboxPublisher publisher, ConsumerOutbox consumerOutbox, MessageSerializer serializer, RelayWakeUp wakeUp) {

	/**
	 * Checks that every resource is there.
	 */
	public InboxResources {
		Objects.requireNonNull(transactionManager, "transactionManager must not be null");
		Objects.requireNonNull(store, "store must not be null");
		Objects.requireNonNull(writer, "writer must not be null");
		Objects.requireNonNull(publisher, "publisher must not be null");
		Objects.requireNonNull(consumerOutbox, "consumerOutbox must not be null");
		Objects.requireNonNull(serializer, "serializer must not be null");
		Objects.requireNonNull(wakeUp, "wakeUp must not be null");
	}

}
