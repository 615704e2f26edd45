package dev.waybill.outbox.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the {@code waybill.outbox.publish} observation; declare a bean to replace
 * {@link DefaultOutboxPublishObservationConvention}.
 *
 * @since 0.1
 */
public interface OutboxPublishObservationConvention extends ObservationConvention<OutboxPublishContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof OutboxPublishContext;
	}

}
