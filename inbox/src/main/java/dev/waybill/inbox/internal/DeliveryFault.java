package dev.waybill.inbox.internal;

import org.jspecify.annotations.Nullable;

/**
 * Why a delivery failed: a handler exception, or a reason the message can never be handled
 * (poison), possibly with the exception behind it.
 *
 * @param reason why the message is poison, or {@literal null} for a handler failure
 * @param exception the exception, or {@literal null} for poison found without one
 */
record DeliveryFault(@Nullable String reason, @Nullable Throwable exception) {

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

}
