package dev.waybill.outbox.rabbit.internal;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * A publish waiting for its confirm.
 *
 * @since 0.1
 */
final class PendingPublish {

	final CompletableFuture<Void> future = new CompletableFuture<>();

	final String messageId;

	final String destination;

	final long deadline;

	volatile @Nullable String returned;

	PendingPublish(String messageId, String destination, long deadline) {
		this.messageId = messageId;
		this.destination = destination;
		this.deadline = deadline;
	}

}
