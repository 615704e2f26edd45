package dev.waybill.outbox.spi;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.InvalidMessageException;
import dev.waybill.outbox.OutboxFullException;
import dev.waybill.outbox.PublishOptions;

/**
 * Turns a payload and its {@link PublishOptions} into an {@link OutboxMessage}: the envelope
 * (id, message type, correlation and conversation ids, source host, sent time), the serialized
 * body and every check a message must pass before it is written. The publisher, the Hibernate
 * integration and the inbox's consumer outbox all build their messages through it, so a message
 * is the same whichever way it enters the outbox.
 *
 * @since 0.1
 */
public interface OutboxMessageFactory {

	/**
	 * Builds a message; buffers nothing and needs no transaction.
	 * @param destination where the message goes, or {@literal null} for the exchange of its
	 * message type
	 * @param message the payload, must not be {@literal null}
	 * @param options customizes the publish options
	 * @return the message
	 * @throws InvalidMessageException for bad input, naming what was wrong
	 * @throws OutboxFullException when the outbox refuses new messages
	 */
	OutboxMessage create(@Nullable String destination, Object message, Consumer<PublishOptions> options);

	/**
	 * Builds a message addressed to the exchange of its message type, with default options.
	 * @param message the payload, must not be {@literal null}
	 * @return the message
	 * @throws InvalidMessageException for bad input, naming what was wrong
	 * @throws OutboxFullException when the outbox refuses new messages
	 */
	default OutboxMessage create(Object message) {
		return create(null, message, (options) -> {
		});
	}

}
