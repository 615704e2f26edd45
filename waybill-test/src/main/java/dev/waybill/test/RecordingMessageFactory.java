package dev.waybill.test;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxMessageFactory;

/**
 * Wraps the application's {@link OutboxMessageFactory}, through which the publisher, the Hibernate
 * integration and the consumer outbox build every message, and records each message built in a
 * transaction once that transaction committed: a rolled-back publication is never observed.
 */
final class RecordingMessageFactory implements OutboxMessageFactory {

	private final OutboxMessageFactory delegate;

	private final Observations observations;

	RecordingMessageFactory(OutboxMessageFactory delegate, Observations observations) {
		this.delegate = delegate;
		this.observations = observations;
	}

	@Override
	public OutboxMessage create(@Nullable String destination, Object message, Consumer<PublishOptions> options) {
		OutboxMessage built = this.delegate.create(destination, message, options);
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					RecordingMessageFactory.this.observations.committed(built, message, destination != null);
				}
			});
		}
		return built;
	}

	OutboxMessageFactory delegate() {
		return this.delegate;
	}

}
