package dev.waybill.inbox.internal.observation;

import java.util.Objects;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.observation.DefaultInboxProcessObservationConvention;
import dev.waybill.inbox.observation.InboxProcessContext;
import dev.waybill.inbox.observation.InboxProcessObservationConvention;
import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboundMessage;
import dev.waybill.inbox.InboxOutcome;
import dev.waybill.outbox.internal.observation.WaybillMdc;

/**
 * Wraps the inbox's work on a delivery: the {@link WaybillMdc} entries always, and, with a registry
 * that is not a no-op, the {@code waybill.inbox.process} observation, opened on the delivering
 * thread so the handler's own observations and publishes are its children.
 *
 * @since 0.2
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

}
