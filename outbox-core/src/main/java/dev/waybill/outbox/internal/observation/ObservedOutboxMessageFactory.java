package dev.waybill.outbox.internal.observation;

import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.MessageTypes;
import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.observation.DefaultOutboxPublishObservationConvention;
import dev.waybill.outbox.observation.OutboxPublishContext;
import dev.waybill.outbox.observation.OutboxPublishObservationConvention;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.OutboxMessageFactory;

/**
 * An {@link OutboxMessageFactory} that observes each message it builds as
 * {@code waybill.outbox.publish}, a producer observation whose carrier is the message's headers: with
 * Micrometer Tracing, the span is a child of the current one (the request that publishes) and its
 * context ({@code traceparent}, {@code tracestate}, {@code baggage}) is stored in the message's
 * headers, in the business transaction, for the relay and the consumers to continue. A header the
 * application set itself is left alone. With a no-op registry it only delegates.
 * <p>
 * The auto-configuration wraps the default factory; wrap your own factory to trace its messages.
 *
 * @since 0.1
 */
public final class ObservedOutboxMessageFactory implements OutboxMessageFactory {

	private final OutboxMessageFactory delegate;

	private final ObservationRegistry registry;

	private final @Nullable OutboxPublishObservationConvention convention;

	/**
	 * Creates the factory.
	 * @param delegate builds the messages
	 * @param registry the observation registry
	 * @param convention replaces the default convention, or {@literal null}
	 */
	public ObservedOutboxMessageFactory(OutboxMessageFactory delegate, ObservationRegistry registry,
			@Nullable OutboxPublishObservationConvention convention) {
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.convention = convention;
	}

	/**
	 * Returns the factory it wraps.
	 * @return the delegate
	 */
	public OutboxMessageFactory delegate() {
		return this.delegate;
	}

	@Override
	public OutboxMessage create(@Nullable String destination, Object message, Consumer<PublishOptions> options) {
		if (this.registry.isNoop() || message == null || options == null) {
			return this.delegate.create(destination, message, options);
		}
		String type = MessageTypes.nameOf(message);
		OutboxPublishContext context = new OutboxPublishContext(type,
				(destination != null && !destination.isBlank()) ? destination : type);
		Observation observation = Observation.createNotStarted(this.convention,
				DefaultOutboxPublishObservationConvention.INSTANCE, () -> context, this.registry);
		observation.start();
		try {
			OutboxMessage built = this.delegate.create(destination, message, options.andThen((publish) -> {
				Map<String, Object> set = publish.headers();
				context.headers().forEach((name, value) -> {
					if (!set.containsKey(name)) {
						publish.header(name, value);
					}
				});
			}));
			context.built(built.messageId(), built.destination());
			return built;
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
