package dev.waybill.inbox.internal.observation;

import java.util.Objects;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.inbox.observation.DefaultInboxProcessObservationConvention;
import dev.waybill.inbox.observation.InboxProcessContext;
import dev.waybill.inbox.observation.InboxProcessObservationConvention;
import dev.waybill.kernel.WaybillMdc;

/**
 * Wraps the inbox's work on a delivery: the {@link WaybillMdc} entries always, and, with a registry
 * that is not a no-op, the {@code waybill.inbox.process} observation, opened on the delivering
 * thread so the handler's own observations and publishes are its children.
 *
 * @since 0.1
 */
public final class InboxObservation {

	/** Sets the MDC entries and observes nothing. */
	public static final InboxObservation NONE = new InboxObservation(ObservationRegistry.NOOP, null);

	private final ObservationRegistry registry;

	private final @Nullable InboxProcessObservationConvention convention;

	/**
	 * Creates the inbox's observation.
	 * @param registry the observation registry
	 * @param convention replaces the default convention, or {@literal null}
	 */
	public InboxObservation(ObservationRegistry registry, @Nullable InboxProcessObservationConvention convention) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.convention = convention;
	}

	/**
	 * Runs the inbox's work on a delivery, observed.
	 * @param consumer the consumer the message arrived for
	 * @param message the delivery
	 * @param work handles the delivery
	 * @return what {@code work} returned
	 */
	public InboxOutcome observe(ConsumerRegistration<?> consumer, InboundMessage message, Supplier<InboxOutcome> work) {
		try (WaybillMdc mdc = WaybillMdc.inbox(message.messageId(), consumer.messageType(), consumer.consumerId(),
				consumer.queue())) {
			if (this.registry.isNoop()) {
				return work.get();
			}
			InboxProcessContext context = new InboxProcessContext(consumer, message);
			Observation observation = Observation.createNotStarted(this.convention,
					DefaultInboxProcessObservationConvention.INSTANCE, () -> context, this.registry);
			observation.start();
			try (Observation.Scope scope = observation.openScope()) {
				InboxOutcome outcome = work.get();
				context.outcome(outcome);
				return outcome;
			}
			catch (RuntimeException | Error ex) {
				observation.error(ex);
				throw ex;
			}
			finally {
				observation.stop();
			}
		}
	}

	/**
	 * Marks the delivery observed on this thread as failed, so a trace shows its span as an error:
	 * its handler failed (a redelivery is scheduled or the message went to the error queue), or the
	 * message can never be handled. Called in the delivery's scope; does nothing outside one.
	 * @param failure the handler's exception, or one that says why the message is poison
	 * @since 0.1
	 */
	public void failed(Throwable failure) {
		Observation current = this.registry.getCurrentObservation();
		if (current != null && current.getContext() instanceof InboxProcessContext) {
			current.error(failure);
		}
	}

	/**
	 * Starts observing a delivery whose outcome is known only later: a batched inbox runs its
	 * handler among others and commits them together. Stop it with {@link Pending#stop}.
	 * @param consumer the consumer the message arrived for
	 * @param message the delivery
	 * @return the started observation
	 * @since 0.1
	 */
	public Pending start(ConsumerRegistration<?> consumer, InboundMessage message) {
		if (this.registry.isNoop()) {
			return new Pending(consumer, message, null, null);
		}
		InboxProcessContext context = new InboxProcessContext(consumer, message);
		Observation observation = Observation.createNotStarted(this.convention,
				DefaultInboxProcessObservationConvention.INSTANCE, () -> context, this.registry);
		observation.start();
		return new Pending(consumer, message, observation, context);
	}

	/**
	 * The observation of one delivery of a batch: the handler runs in it, with the MDC entries, and
	 * it stops once the batch committed.
	 *
	 * @since 0.1
	 */
	public static final class Pending {

		private final ConsumerRegistration<?> consumer;

		private final InboundMessage message;

		private final @Nullable Observation observation;

		private final @Nullable InboxProcessContext context;

		private Pending(ConsumerRegistration<?> consumer, InboundMessage message, @Nullable Observation observation,
				@Nullable InboxProcessContext context) {
			this.consumer = consumer;
			this.message = message;
			this.observation = observation;
			this.context = context;
		}

		/**
		 * Runs part of the work on the delivery in the observation's scope, with the MDC entries.
		 * @param <T> what the work returns
		 * @param work the work
		 * @return what it returned
		 */
		public <T> T run(Supplier<T> work) {
			try (WaybillMdc mdc = WaybillMdc.inbox(this.message.messageId(), this.consumer.messageType(),
					this.consumer.consumerId(), this.consumer.queue())) {
				if (this.observation == null) {
					return work.get();
				}
				try (Observation.Scope scope = this.observation.openScope()) {
					return work.get();
				}
			}
		}

		/**
		 * Stops the observation.
		 * @param outcome what was committed, or {@literal null} when nothing was
		 * @param error why nothing was committed, or {@literal null}
		 */
		public void stop(@Nullable InboxOutcome outcome, @Nullable Throwable error) {
			if (this.observation == null) {
				return;
			}
			if (outcome != null && this.context != null) {
				this.context.outcome(outcome);
			}
			if (error != null) {
				this.observation.error(error);
			}
			this.observation.stop();
		}

	}

}
