package dev.waybill.outbox.internal.relay;

import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

import dev.waybill.outbox.spi.ClaimedScope;
import dev.waybill.outbox.spi.TransportException;

/**
 * A published scope's outcome, waiting on the settling thread to be recorded: confirmed (no
 * failures), failed, or expired before it was published.
 */
final class Outcome {

	private final ClaimedScope scope;

	private final List<TransportException> failures;

	private final Instant completedAt;

	/** Whether the scope expired before it was published. */
	final boolean expired;

	/** When its write first failed ({@link System#nanoTime()}), or 0. */
	long unrecordedSince;

	Outcome(ClaimedScope scope, List<TransportException> failures, Instant completedAt, boolean expired) {
		this.expired = expired;
		this.scope = scope;
		this.failures = failures;
		this.completedAt = completedAt;
	}

	ClaimedScope scope() {
		return this.scope;
	}

	List<TransportException> failures() {
		return this.failures;
	}

	Instant completedAt() {
		return this.completedAt;
	}

	/** Whether an earlier write of this outcome failed, so this is a retry of it. */
	boolean retried() {
		return this.unrecordedSince != 0;
	}

	/**
	 * Whether a fenced write of the outcome took effect: it matched the scope, or it matched nothing
	 * on a retry after a write whose answer was lost, which then had committed (the scope's lease was
	 * renewed while its outcome waited here, so no other relay took it over).
	 */
	boolean written(boolean matched) {
		return matched || retried();
	}

	boolean hasOrderingKey() {
		return !this.scope.messages().isEmpty() && this.scope.messages().get(0).orderingKey() != null;
	}

	/** The exchanges, or for the default exchange (which routes by queue name) the queues. */
	String destinations() {
		return this.scope.messages()
			.stream()
			.map((message) -> message.destination().isEmpty() ? "queue '" + message.routingKey() + "'"
					: "'" + message.destination() + "'")
			.distinct()
			.collect(Collectors.joining(", "));
	}

}
