package dev.waybill.inbox.spi;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.waybill.inbox.ConsumerRegistration;
import dev.waybill.inbox.InboxHeaders;

/**
 * The headers of a message Waybill forwards for a consumer (a redelivery, a fault, the receive
 * endpoint's last resort), shared so that every forward treats a sender's headers alike.
 */
public final class ForwardedHeaders {

	/** The exchange a message sent straight to a queue is published to. */
	public static final String DEFAULT_EXCHANGE = "";

	private ForwardedHeaders() {
	}

	/**
	 * Returns the inbound headers, values and types unchanged (the outbox stores them losslessly),
	 * except Waybill's own: where the message was first published, unless an earlier forward of
	 * Waybill's recorded that already, and no fault headers, original id or (unless forwarded
	 * before) redelivery count a sender put there: a sender cannot dress up what Waybill says of a
	 * fault. An earlier forward is a redelivery: it comes through the default exchange, routed by
	 * the consumer's queue name; a message that came any other way was published where it arrived,
	 * whatever its headers claim.
	 * @param consumer the consumer the message arrived for
	 * @param inbound the headers it arrived with
	 * @param exchange the exchange it arrived through
	 * @param routingKey the routing key it arrived with
	 * @return a new, modifiable map
	 */
	public static Map<String, Object> of(ConsumerRegistration<?> consumer, Map<String, Object> inbound, String exchange,
			String routingKey) {
		Map<String, Object> headers = new LinkedHashMap<>(inbound);
		for (String own : List.of(InboxHeaders.FAULT_REASON, InboxHeaders.FAULT_EXCEPTION_TYPE,
				InboxHeaders.FAULT_MESSAGE, InboxHeaders.FAULT_STACK_TRACE, InboxHeaders.FAULT_ATTEMPTS,
				InboxHeaders.ORIGINAL_MESSAGE_ID, InboxHeaders.DROPPED_HEADERS)) {
			headers.remove(own);
		}
		boolean forwardedBefore = DEFAULT_EXCHANGE.equals(exchange) && consumer.queue().equals(routingKey);
		if (forwardedBefore) {
			headers.putIfAbsent(InboxHeaders.ORIGINAL_EXCHANGE, exchange);
			headers.putIfAbsent(InboxHeaders.ORIGINAL_ROUTING_KEY, routingKey);
		}
		else {
			headers.remove(InboxHeaders.REDELIVERY_COUNT);
			headers.put(InboxHeaders.ORIGINAL_EXCHANGE, exchange);
			headers.put(InboxHeaders.ORIGINAL_ROUTING_KEY, routingKey);
		}
		return headers;
	}

	/**
	 * Returns Waybill's own headers among forwarded ones (where the message was first published
	 * and how often it was redelivered): what a forward keeps when the sender's headers leave no
	 * room in one AMQP frame.
	 * @param forwarded headers as {@link #of} returned them
	 * @return a new, modifiable map
	 */
	public static Map<String, Object> waybillsOwn(Map<String, Object> forwarded) {
		Map<String, Object> own = new LinkedHashMap<>();
		for (String name : List.of(InboxHeaders.ORIGINAL_EXCHANGE, InboxHeaders.ORIGINAL_ROUTING_KEY,
				InboxHeaders.REDELIVERY_COUNT)) {
			if (forwarded.containsKey(name)) {
				own.put(name, forwarded.get(name));
			}
		}
		return own;
	}

}
