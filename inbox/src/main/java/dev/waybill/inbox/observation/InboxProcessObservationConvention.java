package dev.waybill.inbox.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the {@code waybill.inbox.process} observation; declare a bean to replace
 * {@link DefaultInboxProcessObservationConvention}.
 *
 * @since 0.1
 */
public interface InboxProcessObservationConvention extends ObservationConvention<InboxProcessContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof InboxProcessContext;
	}

}
