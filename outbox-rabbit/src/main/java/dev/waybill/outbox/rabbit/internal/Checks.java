package dev.waybill.outbox.rabbit.internal;

import java.time.Duration;

/**
 * The argument checks the transport's settings share.
 *
 * @since 0.1
 */
final class Checks {

	private Checks() {
	}

	static Duration positive(Duration value, String name) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be positive, was " + value);
		}
		return value;
	}

}
