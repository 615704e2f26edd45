package dev.waybill.outbox.hibernate.internal;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import jakarta.persistence.EntityManagerFactory;
import org.hibernate.engine.spi.SessionImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.jspecify.annotations.Nullable;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.hibernate.OutboxEventSource;
import dev.waybill.outbox.spi.ConnectionOutboxWriter;
import dev.waybill.outbox.spi.OutboxMessageFactory;
import dev.waybill.outbox.spi.OutboxScope;
import dev.waybill.outbox.spi.OutboxWriter;

/**
 * The outbox of a JPA application: collects the events of flushed entities and the messages
 * {@link dev.waybill.outbox.OutboxPublisher} buffered, per Hibernate session, and writes them as
 * one scope through the session's own connection after the session's last flush before commit.
 * <p>
 * Hibernate flushes a session at commit <em>after</em> Spring's before-commit callbacks (inside
 * {@code JpaTransactionManager.doCommit}), so the outbox cannot be written from such a callback
 * without missing the events of entities flushed only then. Instead it is written from a
 * Hibernate before-completion callback, which runs after that final flush and before the
 * database commit, on the session's connection; a failed write fails the commit.
 * <p>
 * As an {@link OutboxWriter}, it takes the scope of a transaction that has a Hibernate session
 * bound for the given {@link EntityManagerFactory} into that session's outbox, and hands every
 * other scope to the connection writer it was given.
 *
 * @since 0.1
 */
public final class HibernateOutbox implements OutboxWriter {

	private final EntityManagerFactory entityManagerFactory;

	private final ConnectionOutboxWriter store;

	private final Supplier<OutboxMessageFactory> messages;

	private final RelayWakeUp wakeUp;

	private final Map<SharedSessionContractImplementor, SessionOutbox> sessions = new ConcurrentHashMap<>();

	/**
	 * Creates the outbox.
	 * @param entityManagerFactory the factory whose transactional sessions write through this outbox
	 * @param store writes scopes on a connection, and the scopes of transactions without a session
	 * @param messages turns events into messages as {@code publish} would; resolved on first use
	 * @param wakeUp signalled after a commit that wrote messages
	 */
	public HibernateOutbox(EntityManagerFactory entityManagerFactory, ConnectionOutboxWriter store,
			Supplier<OutboxMessageFactory> messages, RelayWakeUp wakeUp) {
		this.entityManagerFactory = Objects.requireNonNull(entityManagerFactory, "entityManagerFactory must not be null");
		this.store = Objects.requireNonNull(store, "store must not be null");
		this.messages = Objects.requireNonNull(messages, "messages must not be null");
		this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp must not be null");
	}

	@Override
	public void checkTransaction() {
		if (transactionalSession() == null) {
			this.store.checkTransaction();
		}
	}

	@Override
	public void write(OutboxScope scope) {
		SessionImplementor session = transactionalSession();
		if (session != null) {
			outboxOf(session).add(scope);
		}
		else {
			this.store.write(scope);
		}
	}

	@Override
	public boolean cancel(UUID scopeId) {
		SessionImplementor session = transactionalSession();
		if (session == null) {
			return this.store.cancel(scopeId);
		}
		return session.doReturningWork((connection) -> this.store.cancel(connection, scopeId));
	}

	/**
	 * Moves the pending events of an entity into the outbox of the session's transaction.
	 * @param session the session flushing or merging the entity
	 * @param source the entity
	 * @param entity names the entity in errors, e.g. {@code com.example.Order#42}
	 * @param defaultKey the entity's default ordering key, {@code <entity name>#<id>}, or
	 * {@literal null} when its id is not known
	 * @throws IllegalStateException when the session has no transaction in progress, or its outbox
	 * was already written
	 */
	void collect(SharedSessionContractImplementor session, OutboxEventSource source, String entity,
			@Nullable String defaultKey) {
		if (source.pendingOutboxEvents().isEmpty()) {
			return;
		}
		if (!session.isTransactionInProgress()) {
			throw new IllegalStateException("Entity " + entity + " has " + source.pendingOutboxEvents().size()
					+ " outbox event(s) but is flushed outside a transaction, so they could not be written "
					+ "atomically with it. Change the entity inside a transaction (@Outbox or @Transactional).");
		}
		OutboxMessageFactory messages = this.messages.get();
		SessionOutbox outbox = outboxOf(session);
		outbox.requireOpen(entity);
		String orderingKey = source.outboxOrderingKey(defaultKey);
		for (Object event : source.pendingOutboxEvents()) {
			try {
				outbox.add(messages.create(null, event, (options) -> options.orderingKey(orderingKey)));
			}
			catch (InvalidMessageException ex) {
				// Thrown at a flush or a commit, far from the registerEvent call: say whose event it is.
				throw new InvalidMessageException(ex.getMessageType(),
						reason(ex) + " (an outbox event of entity " + entity + ")", ex);
			}
		}
		source.clearOutboxEvents();
	}

	/** The exception's reason without the "Cannot publish message of type '...': " it starts with. */
	private static String reason(InvalidMessageException ex) {
		String message = String.valueOf(ex.getMessage());
		String prefix = (ex.getMessageType() != null) ? "Cannot publish message of type '" + ex.getMessageType() + "': "
				: "Cannot publish message: ";
		return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
	}

	private SessionOutbox outboxOf(SharedSessionContractImplementor session) {
		return this.sessions.computeIfAbsent(session, (key) -> {
			SessionOutbox outbox = new SessionOutbox(this.store);
			key.getTransactionCompletionCallbacks().registerCallback((SessionOutbox.BeforeCompletion) outbox::write);
			key.getTransactionCompletionCallbacks().registerCallback(
					(SessionOutbox.AfterCompletion) (success, completed) -> completed(completed, outbox, success));
			if (TransactionSynchronizationManager.isSynchronizationActive() && key == transactionalSession()) {
				TransactionSynchronizationManager.registerSynchronization(outbox);
			}
			return outbox;
		});
	}

	private void completed(SharedSessionContractImplementor session, SessionOutbox outbox, boolean success) {
		outbox.completed();
		this.sessions.remove(session, outbox);
		if (success && outbox.wroteMessages()) {
			this.wakeUp.committed();
		}
	}

	private @Nullable SessionImplementor transactionalSession() {
		Object holder = TransactionSynchronizationManager.getResource(this.entityManagerFactory);
		if (holder instanceof EntityManagerHolder entityManagerHolder) {
			SessionImplementor session = entityManagerHolder.getEntityManager().unwrap(SessionImplementor.class);
			if (session.isTransactionInProgress()) {
				return session;
			}
		}
		return null;
	}

	/** For tests: sessions whose transaction has not completed yet. */
	int openSessions() {
		return this.sessions.size();
	}

}
