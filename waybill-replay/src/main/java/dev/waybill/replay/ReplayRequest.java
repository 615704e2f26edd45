package dev.waybill.replay;

import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What to replay and how: a selection of published messages (archived or still retained), a
 * target, whether message ids are kept, and the pace.
 *
 * @param destination only messages originally sent to this exchange, or {@literal null} for any
 * @param messageType only messages of this type, or {@literal null} for any
 * @param from only messages created at or after this time, or {@literal null}
 * @param to only messages created before this time, or {@literal null}
 * @param target where the replayed messages go
 * @param keepMessageIds whether replayed messages keep their ids (the default), so consumers
 * that already processed them skip them through their inbox; {@code false} gives each a new id
 * @param batchSize messages per batch (one transaction, one outbox scope)
 * @param messagesPerSecond the pace, {@code 0} for as fast as batches can be written
 * @since 0.1
 */
public record ReplayRequest(@Nullable String destination, @Nullable String messageType, @Nullable Instant from,
		@Nullable Instant to, ReplayTarget target, boolean keepMessageIds, int batchSize, int messagesPerSecond) {

	/** The default batch size. */
	public static final int DEFAULT_BATCH_SIZE = 100;

	/** The largest batch size. */
	public static final int MAX_BATCH_SIZE = 10_000;

	/**
	 * Checks the components.
	 * @throws IllegalArgumentException naming the first invalid one
	 */
	public ReplayRequest {
		Objects.requireNonNull(target, "target must not be null");
		if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
			throw new IllegalArgumentException("batchSize must be between 1 and " + MAX_BATCH_SIZE + ", was " + batchSize);
		}
		if (messagesPerSecond < 0) {
			throw new IllegalArgumentException("messagesPerSecond must not be negative, was " + messagesPerSecond);
		}
		if (from != null && to != null && !from.isBefore(to)) {
			throw new IllegalArgumentException("from (" + from + ") must be before to (" + to + ")");
		}
	}

	/**
	 * Selects every published message, to its original destination, ids kept, unpaced.
	 * @return the request
	 */
	public static ReplayRequest all() {
		return new ReplayRequest(null, null, null, null, ReplayTarget.original(), true, DEFAULT_BATCH_SIZE, 0);
	}

	/**
	 * Narrows the selection to one original destination.
	 * @param destination the exchange the messages were sent to
	 * @return the new request
	 */
	public ReplayRequest destination(@Nullable String destination) {
		return new ReplayRequest(destination, this.messageType, this.from, this.to, this.target, this.keepMessageIds,
				this.batchSize, this.messagesPerSecond);
	}

	/**
	 * Narrows the selection to one message type.
	 * @param messageType the message type name
	 * @return the new request
	 */
	public ReplayRequest messageType(@Nullable String messageType) {
		return new ReplayRequest(this.destination, messageType, this.from, this.to, this.target, this.keepMessageIds,
				this.batchSize, this.messagesPerSecond);
	}

	/**
	 * Narrows the selection to a time window of creation.
	 * @param from inclusive, or {@literal null}
	 * @param to exclusive, or {@literal null}
	 * @return the new request
	 */
	public ReplayRequest between(@Nullable Instant from, @Nullable Instant to) {
		return new ReplayRequest(this.destination, this.messageType, from, to, this.target, this.keepMessageIds,
				this.batchSize, this.messagesPerSecond);
	}

	/**
	 * Sends the replayed messages elsewhere.
	 * @param target the target
	 * @return the new request
	 */
	public ReplayRequest to(ReplayTarget target) {
		return new ReplayRequest(this.destination, this.messageType, this.from, this.to, target, this.keepMessageIds,
				this.batchSize, this.messagesPerSecond);
	}

	/**
	 * Gives every replayed message a new id: consumers then process them as new messages.
	 * @return the new request
	 */
	public ReplayRequest newMessageIds() {
		return new ReplayRequest(this.destination, this.messageType, this.from, this.to, this.target, false,
				this.batchSize, this.messagesPerSecond);
	}

	/**
	 * Sets the pace.
	 * @param batchSize messages per batch
	 * @param messagesPerSecond the most messages written per second across all instances, 0 for no limit
	 * @return the new request
	 */
	public ReplayRequest paced(int batchSize, int messagesPerSecond) {
		return new ReplayRequest(this.destination, this.messageType, this.from, this.to, this.target, this.keepMessageIds,
				batchSize, messagesPerSecond);
	}

}
