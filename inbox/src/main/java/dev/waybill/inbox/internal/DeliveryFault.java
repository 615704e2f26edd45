package dev.waybill.inbox.internal;

import org.jspecify.annotations.Nullable;

import dev.waybill.kernel.PostgresText;

/**
 * Why a delivery failed: a handler exception, or a reason the message can never be handled
 * (poison), possibly with the exception behind it.
 *
 * @param reason why the message is poison, or {@literal null} for a handler failure
 * @param exception the exception, or {@literal null} for poison found without one
 */
record DeliveryFault(@Nullable String reason, @Nullable Throwable exception) {

	/**
	 * The failure of a handler that returned normally after one of its statements failed: PostgreSQL
	 * aborted the transaction, so the handler, not the inbox, failed the delivery.
	 */
	static final String ABORTED_BY_HANDLER = "The handler returned normally, but a statement it ran failed and "
			+ "aborted its transaction (SQLSTATE 25P02); was a database exception caught in the handler?";

	private static final int SHOWN_LENGTH = 64;

	/** The longest reason recorded; longer ones are cut. */
	private static final int MAX_REASON_LENGTH = 1000;

	static DeliveryFault handlerFailed(Throwable exception) {
		return new DeliveryFault(null, exception);
	}

	static DeliveryFault poison(String reason, @Nullable Throwable exception) {
		return new DeliveryFault(reason, exception);
	}

	/**
	 * Tells whether the message can never be handled, so it goes to the error queue at once.
	 */
	boolean poison() {
		return this.reason != null;
	}

	/**
	 * Returns the text recorded as the inbox row's last error.
	 */
	String summary() {
		if (this.reason == null) {
			return String.valueOf(this.exception);
		}
		return (this.exception != null) ? this.reason + " (" + this.exception + ")" : this.reason;
	}

	/** Quotes an untrusted property in a fault reason: cut, with control characters escaped. */
	static String shown(@Nullable String text) {
		return PostgresText.readable(String.valueOf(text), SHOWN_LENGTH);
	}

	/** Cuts a reason to the longest one recorded. */
	static String shorten(String text) {
		return (text.length() > MAX_REASON_LENGTH) ? text.substring(0, MAX_REASON_LENGTH) + "..." : text;
	}

	/**
	 * Whether a failure must end the consuming thread's work rather than count as the handler's
	 * failure: the JVM's own errors, except a {@link StackOverflowError}. That one is thrown by the
	 * handler's own code (a recursion, typically over a deeply nested message) and has unwound by
	 * the time it arrives here, so it is retried and faulted like any handler failure; rethrown, it
	 * would come back with every redelivery of the message, which would never reach the error queue.
	 */
	static boolean fatal(Throwable failure) {
		return failure instanceof VirtualMachineError && !(failure instanceof StackOverflowError);
	}

}
