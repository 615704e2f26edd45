package dev.waybill.outbox.spi;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A failed publish, classified by whose failure it was, which decides what the relay does.
 *
 * @since 0.1
 */
public class TransportException extends Exception {

	/**
	 * Whose failure a {@link TransportException} is.
	 */
	public enum Kind {

		/**
		 * The message's: a nack, an unroutable return, no confirm within the timeout, or a
		 * permission the broker refused for its destination (an operator can grant it, so it is
		 * retried; the broker itself is up). Counts a delivery attempt; the scope is retried with
		 * backoff and is dead once its attempts are spent.
		 */
		MESSAGE,

		/**
		 * The message can never be delivered as it is: the broker refuses its destination as
		 * invalid (a reserved name, an incompatible existing exchange), or its body is over the
		 * broker's limit. The scope is dead-lettered at once with the reason.
		 */
		PERMANENT,

		/**
		 * The broker's: it cannot be reached, or the connection or channel was lost. Counts no
		 * attempt; the relay's circuit breaker counts it instead.
		 */
		UNAVAILABLE

	}

	private final Kind kind;

	/**
	 * Creates an exception.
	 * @param kind whose failure it is
	 * @param message what happened
	 * @param cause the underlying failure, or {@literal null}
	 */
	public TransportException(Kind kind, String message, @Nullable Throwable cause) {
		super(message, cause);
		this.kind = Objects.requireNonNull(kind, "kind must not be null");
	}

	/**
	 * Creates an exception without a cause.
	 * @param kind whose failure it is
	 * @param message what happened
	 */
	public TransportException(Kind kind, String message) {
		this(kind, message, null);
	}

	/**
	 * Returns whose failure this is.
	 * @return the kind
	 */
	public Kind kind() {
		return this.kind;
	}

}
