package dev.waybill.inbox.internal;

import java.util.List;
import java.util.Objects;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.EndpointRetry;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.internal.Recording.CannotRecord;
import dev.waybill.inbox.internal.Recording.RecordingFailure;
import dev.waybill.kernel.DatabaseFailures;
import dev.waybill.kernel.TransactionConnection;

/**
 * Handles one delivery in transactions of its own, as {@link InboxProcessor} describes: poison to
 * the error queue, the handler retried in process, its failure recorded, each event told to the
 * listener once.
 *
 * @since 0.1
 */
final class SingleDelivery {

	/** The processor's logger: its messages are the processor's, whoever writes them. */
	private static final Log logger = LogFactory.getLog(InboxProcessor.class);

	private final InboxSettings settings;

	private final InboxListeners listeners;

	private final PoisonCheck poison;

	private final HandlerTransaction handler;

	private final FailureRecorder failures;

	SingleDelivery(InboxSettings settings, InboxListeners listeners, PoisonCheck poison, HandlerTransaction handler,
			FailureRecorder failures) {
		this.settings = settings;
		this.listeners = listeners;
		this.poison = poison;
		this.handler = handler;
		this.failures = failures;
	}

	/**
	 * Handles one delivery in its observation, telling the listener it started, its outcome and
	 * that it finished.
	 */
	InboxOutcome process(ConsumerRegistration<?> consumer, InboundMessage message) {
		return this.settings.observation().observe(consumer, message, () -> processListened(consumer, message));
	}

	/**
	 * Handles a delivery again, or after its handler's first attempt failed elsewhere (in a batch),
	 * without telling the listener: its caller does.
	 * @param firstFailure how the handler failed, or {@literal null} to handle the delivery from
	 * scratch
	 */
	@SuppressWarnings("unchecked")
	<T> InboxOutcome handleAgain(ConsumerRegistration<T> consumer, InboundMessage message, UUID id, Object payload,
			@Nullable Throwable firstFailure) {
		try {
			if (firstFailure == null) {
				return deliver(consumer, message, id);
			}
			return handleWithRetries(consumer, message, id, (T) payload, firstFailure);
		}
		catch (CannotRecord ex) {
			return this.failures.faultUnrecorded(consumer, message, id, ex.getCause());
		}
	}

	private InboxOutcome processListened(ConsumerRegistration<?> consumer, InboundMessage message) {
		long started = System.nanoTime();
		InboxOutcome outcome = null;
		this.listeners.started(consumer, message);
		try {
			outcome = processTyped(consumer, message);
			this.listeners.delivered(consumer, message, outcome);
			return outcome;
		}
		finally {
			this.listeners.finished(consumer, message, outcome, System.nanoTime() - started);
		}
	}

	private <T> InboxOutcome processTyped(ConsumerRegistration<T> consumer, InboundMessage message) {
		UUID id = PoisonCheck.canonicalUuid(message.messageId());
		try {
			return deliver(consumer, message, id);
		}
		catch (CannotRecord ex) {
			return this.failures.faultUnrecorded(consumer, message, id, ex.getCause());
		}
	}

	private <T> InboxOutcome deliver(ConsumerRegistration<T> consumer, InboundMessage message, @Nullable UUID id) {
		if (id == null) {
			return this.failures.faultWithoutId(consumer, message);
		}
		PoisonCheck.Verdict<T> verdict = this.poison.check(consumer, message);
		if (verdict.fault() != null) {
			return this.failures.fail(consumer, message, id, verdict.fault());
		}
		return handleWithRetries(consumer, message, id, Objects.requireNonNull(verdict.payload(), "payload"), null);
	}

	/**
	 * Runs the handler in a transaction of its own, retrying it in process and recording its
	 * failure as the class description of {@link InboxProcessor} says.
	 * @param firstFailure how the handler failed in a batch (its first attempt), or {@literal null}
	 */
	private <T> InboxOutcome handleWithRetries(ConsumerRegistration<T> consumer, InboundMessage message, UUID id,
			T payload, @Nullable Throwable firstFailure) {
		int retry = 0;
		int recordingTries = 0;
		Throwable pending = firstFailure;
		while (true) {
			Throwable failure = pending;
			pending = null;
			if (failure == null) {
				TransactionConnection connection = new TransactionConnection();
				try {
					return this.handler.handle(consumer, message, id, payload, retry, connection);
				}
				catch (RecordingFailure ex) {
					// Waybill's own statements failed; the handler's work, if it ran, rolled back.
					if (DatabaseFailures.unavailableToRecord(ex, connection.state())) {
						throw Recording.unavailable(consumer, id, ex.getCause());
					}
					recordingTries = Recording.nextTry(consumer, id, recordingTries, ex.getCause());
					continue;
				}
				catch (RuntimeException | Error ex) {
					if (DeliveryFault.fatal(ex)) {
						throw ex;
					}
					failure = HandlerTransaction.failureOf(ex);
					if (DatabaseFailures.unavailable(ex, connection.state())) {
						throw Recording.unavailable(consumer, id, failure);
					}
				}
			}
			if (failure instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			Throwable ignored = match(consumer.ignore(), failure);
			if (ignored != null) {
				return this.handler.ignore(consumer, id, ignored, failure);
			}
			if (match(consumer.neverRetry(), failure) != null) {
				return this.failures.fail(consumer, message, id, DeliveryFault.poison(
						"the handler threw an exception the consumer never retries", failure), payload);
			}
			if (retry >= immediateRetries(consumer)) {
				return this.failures.fail(consumer, message, id, DeliveryFault.handlerFailed(failure), payload);
			}
			retry++;
			if (logger.isDebugEnabled()) {
				logger.debug("Retrying message " + id + " on queue '" + consumer.queue() + "' at once after: " + failure);
			}
		}
	}

	private int immediateRetries(ConsumerRegistration<?> consumer) {
		EndpointRetry own = consumer.retry();
		return (own != null) ? own.immediate() : this.settings.immediateRetries();
	}

	/** The failure, or the first of its causes, that is an instance of one of the classes. */
	private static @Nullable Throwable match(List<Class<? extends Throwable>> classes, Throwable failure) {
		if (classes.isEmpty()) {
			return null;
		}
		int depth = 0;
		for (Throwable current = failure; current != null && depth < 32; current = current.getCause(), depth++) {
			for (Class<? extends Throwable> type : classes) {
				if (type.isInstance(current)) {
					return current;
				}
			}
		}
		return null;
	}

}
