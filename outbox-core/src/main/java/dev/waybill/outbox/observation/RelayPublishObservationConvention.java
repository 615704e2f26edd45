package dev.waybill.outbox.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the {@code waybill.relay.publish} observation; declare a bean to replace
 * {@link DefaultRelayPublishObservationConvention}.
 *
 * @since 0.1
 */
public interface RelayPublishObservationConvention extends ObservationConvention<RelayPublishContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RelayPublishContext;
	}

}
