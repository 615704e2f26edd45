package dev.waybill.outbox.internal.relay;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.TransportException;

/**
 * The scopes of each ordering key in one batch, a run published one after the other on one
 * channel without waiting for each confirm: links each follower's message to its predecessor's
 * ({@link PublishOptions#ORDERING_PREVIOUS_HEADER}), and counts a scope published only once every
 * earlier scope of its key in the batch was confirmed. A later scope the broker took after it
 * refused an earlier one is given back, not counted published, so that its key's order is
 * published again from the refused scope on; its consumers hold it back until its predecessor
 * arrives. One instance per batch, used on the worker's thread while it publishes.
 */
final class KeyRuns {

	private static final Log logger = LogFactory.getLog(KeyRuns.class);

	static final String NOT_COUNTED = "not counted as published: an earlier message of its ordering key was not confirmed";

	private final Map<String, Run> runs = new HashMap<>();

	/**
	 * Returns the message to publish: a message of a scope that follows an earlier one of its key
	 * in this batch carries the message id of the key's message published just before it, when
	 * both go to the same destination with the same routing key. Call it for each message
	 * published, in publish order (an expired message, not published, is no one's predecessor).
	 */
	OutboxMessage linked(ClaimedScope scope, OutboxMessage message) {
		String key = message.orderingKey();
		if (key == null) {
			return message;
		}
		Run run = this.runs.computeIfAbsent(key, (k) -> new Run());
		OutboxMessage previous = run.lastPublished;
		run.lastPublished = message;
		UUID previousScope = run.lastScope;
		run.lastScope = scope.id();
		if (previous == null || scope.id().equals(previousScope) || !previous.destination().equals(message.destination())
				|| !previous.routingKey().equals(message.routingKey())) {
			return message;
		}
		Map<String, Object> headers = new HashMap<>(message.headers());
		headers.put(PublishOptions.ORDERING_PREVIOUS_HEADER, previous.messageId().toString());
		return new OutboxMessage(message.messageId(), message.destination(), message.routingKey(), message.messageType(),
				message.contentType(), headers, message.body(), message.correlationId(), message.conversationId(),
				message.sourceHost(), message.sentAt(), message.notBefore(), message.expiresAt());
	}

	/**
	 * The failures to settle a scope with, once its confirms and those of every earlier scope of
	 * its key in this batch are in (call it in publish order): its own; or, when it has none but
	 * an earlier one of its key was not confirmed, one that gives it back without counting an
	 * attempt (the failure is the earlier scope's, which is retried by its own cause).
	 * @param scope the scope, published
	 * @param confirmed completes, never exceptionally, once the scope's confirms are all in
	 * @param failures the scope's own failures, read once {@code confirmed} completed
	 */
	CompletableFuture<List<TransportException>> inOrder(ClaimedScope scope, CompletableFuture<?> confirmed,
			Supplier<List<TransportException>> failures) {
		CompletableFuture<List<TransportException>> own = confirmed.thenApply((done) -> failures.get());
		@Nullable String key = key(scope);
		if (key == null) {
			return own;
		}
		Run run = this.runs.computeIfAbsent(key, (k) -> new Run());
		CompletableFuture<Boolean> earlier = run.confirmedSoFar;
		run.confirmedSoFar = own.thenCombine(earlier, (mine, before) -> before && mine.isEmpty());
		return own.thenCombine(earlier, (mine, before) -> {
			if (before || !mine.isEmpty()) {
				return mine;
			}
			run.acceptedAfterRefusal(key, scope);
			return List.of(new TransportException(TransportException.Kind.UNAVAILABLE, NOT_COUNTED));
		});
	}

	private static @Nullable String key(ClaimedScope scope) {
		return scope.messages().isEmpty() ? null : scope.messages().get(0).orderingKey();
	}

	/** One key's scopes in the batch so far. */
	private static final class Run {

		private @Nullable OutboxMessage lastPublished;

		private @Nullable UUID lastScope;

		/** Whether every scope of the key so far was confirmed. */
		private CompletableFuture<Boolean> confirmedSoFar = CompletableFuture.completedFuture(true);

		/** Whether the run was logged; set on whichever broker thread completes its confirms. */
		private final AtomicBoolean warned = new AtomicBoolean();

		void acceptedAfterRefusal(String key, ClaimedScope scope) {
			if (this.warned.compareAndSet(false, true)) {
				logger.warn("Waybill relay: the broker accepted scope " + scope.id() + " of ordering key '" + key
						+ "' after an earlier one of the key was not confirmed; it is published again after that"
						+ " one, and consumers hold it back until its predecessor arrives");
			}
		}

	}

}
