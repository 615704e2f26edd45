package dev.waybill.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxMessageFactory;

/**
 * Wraps the application's {@link OutboxMessageFactory}, through which the publisher, the Hibernate
 * integration and the consumer outbox build every message, and records the messages built in a
 * transaction once that transaction committed, together: a rolled-back publication is never
 * observed.
 */
final class RecordingMessageFactory implements OutboxMessageFactory {

	private static final AtomicLong TRANSACTIONS = new AtomicLong();

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
			commitOfCurrentTransaction().add(new Built(built, message, destination != null));
		}
		return built;
	}

	/**
	 * Returns the recorder of the current transaction, registering it on first use. The
	 * synchronizations are the current transaction's own: a suspended one's are set aside.
	 */
	private Commit commitOfCurrentTransaction() {
		for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
			if (synchronization instanceof Commit commit && commit.owner() == this) {
				return commit;
			}
		}
		Commit commit = new Commit();
		TransactionSynchronizationManager.registerSynchronization(commit);
		return commit;
	}

	private record Built(OutboxMessage message, Object payload, boolean sent) {
	}

	/** The messages one transaction built, recorded when it commits. */
	private final class Commit implements TransactionSynchronization {

		private final List<Built> messages = new ArrayList<>();

		RecordingMessageFactory owner() {
			return RecordingMessageFactory.this;
		}

		void add(Built message) {
			this.messages.add(message);
		}

		@Override
		public void afterCommit() {
			long transaction = TRANSACTIONS.incrementAndGet();
			for (Built built : this.messages) {
				RecordingMessageFactory.this.observations.committed(built.message(), built.payload(), built.sent(),
						transaction);
			}
		}

	}

}
