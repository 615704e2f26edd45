package dev.waybill.outbox.internal.observation;

import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.observation.DefaultRelayPublishObservationConvention;
import dev.waybill.outbox.observation.RelayPublishContext;
import dev.waybill.outbox.observation.RelayPublishObservationConvention;
import dev.waybill.outbox.spi.OutboxMessage;

/**
 * Observes the relay's publish of each message as {@code waybill.relay.publish}, from the hand-over
 * to the broker's confirm. With a no-op registry (no tracer, no observation support) it calls the
 * channel and nothing else, so the untraced relay keeps its fast path.
 *
 * @since 0.1
 */
public final class RelayObservation {

	/** Observes nothing. */
	public static final RelayObservation NONE = new RelayObservation(ObservationRegistry.NOOP, null);

	private final ObservationRegistry registry;

	private final @Nullable RelayPublishObservationConvention convention;

	/**
	 * Creates the relay's observation.
	 * @param registry the observation registry
	 * @param convention replaces the default convention, or {@literal null}
	 */
	public RelayObservation(ObservationRegistry registry, @Nullable RelayPublishObservationConvention convention) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.convention = convention;
	}

	/**
	 * Publishes one message, observed.
	 * @param scopeId the scope the message belongs to
	 * @param message the message
	 * @param channel publishes the message and returns its confirm
	 * @return the confirm {@code channel} returned
	 */
	public CompletableFuture<Void> publish(UUID scopeId, OutboxMessage message,
			Function<OutboxMessage, CompletableFuture<Void>> channel) {
		if (this.registry.isNoop()) {
			return channel.apply(message);
		}
		RelayPublishContext context = new RelayPublishContext(scopeId, message);
		Observation observation = Observation.createNotStarted(this.convention,
				DefaultRelayPublishObservationConvention.INSTANCE, () -> context, this.registry);
		observation.start();
		CompletableFuture<Void> confirm;
		try {
			confirm = channel.apply(message);
		}
		catch (RuntimeException | Error ex) {
			observation.error(ex);
			observation.stop();
			throw ex;
		}
		confirm.whenComplete((ok, failure) -> {
			if (failure != null) {
				observation.error((failure instanceof CompletionException && failure.getCause() != null)
						? failure.getCause() : failure);
			}
			observation.stop();
		});
		return confirm;
	}

}
