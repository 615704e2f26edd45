package dev.waybill.outbox.relay;

/**
 * The state of the relay's circuit breaker, which stops claims while the broker is unreachable so
 * that an outage costs no delivery attempts.
 *
 * @since 0.1
 */
public enum CircuitState {

	/** Claims go through. */
	CLOSED,

	/** One probe of the broker is under way. */
	HALF_OPEN,

	/** Claims wait for the cool-down. */
	OPEN

}
