package dev.waybill.outbox.internal.relay;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.PublishOptions;
import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.KeysInFlight;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.TransportException;

/**
 * The scopes of each ordering key a worker has published and not settled yet, runs published one
 * after the other on its channel without waiting for each confirm, within a batch and across the
 * batches it keeps in flight: links each follower's message to its predecessor's
 * ({@link PublishOptions#ORDERING_PREVIOUS_HEADER}), and counts a scope published only once every
 * earlier scope of its key was confirmed. A later scope the broker took after it refused an
 * earlier one is given back, not counted published, so that its key's order is published again
 * from the refused scope on; its consumers hold it back until its predecessor arrives. The keys
 * in flight ({@link #inFlight}) let the worker's next claim continue them. Used on the worker's
 * thread; what the broker's threads complete is read through futures and counters.
 */
final class KeyRuns {

	private static final Log logger = LogFactory.getLog(KeyRuns.class);

	static final String NOT_COUNTED = "not counted as published: an earlier message of its ordering key was not confirmed";

	private final Map<String, Run> runs = new HashMap<>();

	/** The lease owners of the worker's claims whose scopes are not all settled. */
	private final Set<String> owners = ConcurrentHashMap.newKeySet();

	/**
	 * Returns the message to publish: a message of a scope that follows an earlier one of its key
	 * that this worker published and has not settled carries the message id of the key's message
	 * published just before it, when both go to the same destination with the same routing key. Call it for each message
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
		return message.withHeader(PublishOptions.ORDERING_PREVIOUS_HEADER, previous.messageId().toString());
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
		run.lastSingle = scope.messages().size() == 1;
		CompletableFuture<Boolean> earlier = run.confirmedSoFar;
		run.confirmedSoFar = own.thenCombine(earlier, (mine, before) -> before && mine.isEmpty());
		// Known at the refusal itself, not once every scope published behind it is answered too.
		own.thenAccept((mine) -> {
			if (!mine.isEmpty()) {
				run.refused = true;
			}
		});
		return own.thenCombine(earlier, (mine, before) -> {
			if (before || !mine.isEmpty()) {
				return mine;
			}
			run.acceptedAfterRefusal(key, scope);
			return List.of(new TransportException(TransportException.Kind.UNAVAILABLE, NOT_COUNTED));
		});
	}

	/**
	 * Counts a keyed scope unsettled until {@code settled} completes.
	 * @param scope a scope just published
	 * @param settled completes once the scope's outcome was handed to the settler
	 */
	void unsettled(ClaimedScope scope, CompletableFuture<?> settled) {
		@Nullable String key = key(scope);
		if (key == null) {
			return;
		}
		Run run = this.runs.get(key);
		if (run == null) {
			return; // nothing of it was published (expired)
		}
		// in publish order, which is the key's order: the first is where the key's next claim looks from
		Long place = run.published++;
		run.unsettled.put(place, scope.id());
		settled.whenComplete((done, failure) -> run.unsettled.remove(place));
	}

	/**
	 * Counts a claim's lease owner in flight until its batch is settled.
	 * @param owner the claim's lease owner
	 * @param batchSettled completes once every scope of the claim was handed to the settler
	 */
	void claimed(String owner, CompletableFuture<?> batchSettled) {
		this.owners.add(owner);
		batchSettled.whenComplete((done, failure) -> this.owners.remove(owner));
	}

	/**
	 * Forgets the keys whose scopes are all settled, and returns the others for the next claim:
	 * continuable when the key's last scope was of one message, none of it was refused so far, and
	 * at most half of {@code limit} of its scopes are unsettled. A key whose window is fuller waits
	 * until half of it is free, so that a key with a backlog goes out in runs of at least half a
	 * batch (the worker keeps a bounded number of batches in flight), while a key whose scopes come
	 * one by one goes on at once.
	 * @param limit the most scopes of a key the worker has in flight (its batch size)
	 * @return the keys in flight and the owners they are leased to
	 */
	KeysInFlight inFlight(int limit) {
		this.runs.values().removeIf((run) -> run.unsettled.isEmpty() || run.lastPublished == null);
		if (this.runs.isEmpty()) {
			return KeysInFlight.NONE;
		}
		List<KeysInFlight.Key> keys = new ArrayList<>(this.runs.size());
		this.runs.forEach((key, run) -> {
			OutboxMessage last = run.lastPublished;
			Map.Entry<Long, UUID> first = run.unsettled.firstEntry();
			if (first != null) { // else settled meanwhile, on a broker thread
				keys.add(new KeysInFlight.Key(key, last.destination(), last.routingKey(), first.getValue(),
						run.lastSingle && !run.refused && run.unsettled.size() <= limit / 2));
			}
		});
		return keys.isEmpty() ? KeysInFlight.NONE : new KeysInFlight(this.owners, keys);
	}

	/**
	 * Whether a key in flight may be continued now or once half its window is free (call it after
	 * {@link #inFlight}): the worker then looks for the key's next scopes at every signal.
	 * @return whether a key in flight was neither refused nor ended by a scope of several messages
	 */
	boolean continuesLater() {
		return this.runs.values().stream().anyMatch((run) -> run.lastSingle && !run.refused);
	}

	/**
	 * Whether a batch has scopes of an ordering key: its settling frees room in its key's window.
	 * @param batch a batch published
	 * @return whether one of its scopes has an ordering key
	 */
	static boolean keyed(List<ClaimedScope> batch) {
		return batch.stream().anyMatch((scope) -> key(scope) != null);
	}

	private static @Nullable String key(ClaimedScope scope) {
		return scope.messages().isEmpty() ? null : scope.messages().get(0).orderingKey();
	}

	/** One key's scopes in the batch so far. */
	private static final class Run {

		private @Nullable OutboxMessage lastPublished;

		private @Nullable UUID lastScope;

		/** Whether the last scope published was of one message (only such a run is continued). */
		private boolean lastSingle;

		/** Whether every scope of the key so far was confirmed. */
		private CompletableFuture<Boolean> confirmedSoFar = CompletableFuture.completedFuture(true);

		/** The key's scopes published and not yet handed to the settler, by their place in publish order. */
		private final ConcurrentSkipListMap<Long, UUID> unsettled = new ConcurrentSkipListMap<>();

		/** How many of the key's scopes were published; worker thread only. */
		private long published;

		/** Whether the broker refused one of the key's scopes; set on a broker thread. */
		private volatile boolean refused;

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
