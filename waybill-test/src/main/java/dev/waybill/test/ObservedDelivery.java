package dev.waybill.test;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.InboxOutcome;

/**
 * A delivery the {@link WaybillTestHarness} saw the inbox commit for one of the application's
 * handlers: processed, suppressed as a duplicate, scheduled for redelivery or faulted.
 *
 * @param <T> the message class
 * @param queue the consumer's queue, also its consumer id in the inbox
 * @param handlerClass the class of the handler (the target class of a proxied bean)
 * @param messageId the message id as delivered, or {@literal null} when it had none
 * @param messageType the message type name as delivered, or {@literal null}
 * @param headers the headers of the delivery
 * @param message the message read from the body, or {@literal null} when the body could not be read
 * @param outcome what the inbox committed
 * @param byHarness whether the test delivered it with {@link WaybillTestHarness#deliver}
 * @param observedAt when the outcome committed
 * @since 0.1
 */
public record ObservedDelivery<T>(String queue, Class<?> handlerClass, @Nullable String messageId,
		@Nullable String messageType, Map<String, Object> headers, @Nullable T message, InboxOutcome outcome,
		boolean byHarness, Instant observedAt) {

	/**
	 * Copies the headers.
	 */
	public ObservedDelivery {
		headers = Map.copyOf(headers);
	}

}
