package dev.waybill.console;

import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.InboxLookup;
import dev.waybill.outbox.rabbit.ErrorQueues;

/**
 * The consumer side of an application that consumes from RabbitMQ through the inbox.
 *
 * @since 0.1
 */
public final class RabbitConsumerSide implements ConsumerSide {

	private final InboxLookup inbox;

	private final @Nullable ErrorQueues errorQueues;

	/**
	 * Creates the consumer side.
	 * @param inbox the inbox lookup
	 * @param errorQueues the error queues, or {@literal null} when the application has none
	 */
	public RabbitConsumerSide(InboxLookup inbox, @Nullable ErrorQueues errorQueues) {
		this.inbox = inbox;
		this.errorQueues = errorQueues;
	}

	@Override
	public List<?> lookup(UUID messageId) {
		return this.inbox.find(messageId);
	}

	@Override
	public List<?> errorQueues() {
		return (this.errorQueues != null) ? this.errorQueues.queues() : List.of();
	}

	@Override
	public List<?> peek(String queue, int max, int previewBytes) {
		return queues().peek(queue, max, previewBytes);
	}

	@Override
	public List<String> redrive(String queue, @Nullable List<String> messageIds, String actor) {
		return queues().redrive(queue, messageIds, actor);
	}

	@Override
	public List<String> discard(String queue, List<String> messageIds, String actor) {
		return queues().discard(queue, messageIds, actor);
	}

	private ErrorQueues queues() {
		if (this.errorQueues == null) {
			throw new IllegalArgumentException("This application has no error queues");
		}
		return this.errorQueues;
	}

}
