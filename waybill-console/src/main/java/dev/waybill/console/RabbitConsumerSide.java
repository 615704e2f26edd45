package dev.waybill.console;

import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.InboxLookup;
import dev.waybill.inbox.StoreInboxLookups;
import dev.waybill.outbox.rabbit.ErrorQueues;
import dev.waybill.outbox.store.UnknownStoreException;
import dev.waybill.outbox.store.WaybillStore;

/**
 * The consumer side of an application that consumes from RabbitMQ through the inbox.
 *
 * @since 0.1
 */
public final class RabbitConsumerSide implements ConsumerSide {

	private final StoreInboxLookups inboxes;

	private final @Nullable ErrorQueues errorQueues;

	/**
	 * Creates the consumer side of an application with the default store only.
	 * @param inbox the inbox lookup
	 * @param errorQueues the error queues, or {@literal null} when the application has none
	 */
	public RabbitConsumerSide(InboxLookup inbox, @Nullable ErrorQueues errorQueues) {
		this(defaultOnly(inbox), errorQueues);
	}

	/**
	 * Creates the consumer side.
	 * @param inboxes the inbox lookup of each store
	 * @param errorQueues the error queues, or {@literal null} when the application has none
	 */
	public RabbitConsumerSide(StoreInboxLookups inboxes, @Nullable ErrorQueues errorQueues) {
		this.inboxes = inboxes;
		this.errorQueues = errorQueues;
	}

	private static StoreInboxLookups defaultOnly(InboxLookup inbox) {
		return (store) -> {
			if (!WaybillStore.DEFAULT_NAME.equals(store)) {
				throw new UnknownStoreException("No store '" + store + "' is registered; registered stores: [default]");
			}
			return inbox;
		};
	}

	@Override
	public List<?> lookup(UUID messageId, String store) {
		return this.inboxes.of(store).find(messageId);
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
