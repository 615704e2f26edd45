package dev.waybill.outbox.rabbit.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The arguments an error queue is declared with: its consumer queue's type and placement, none of
 * its limits. A time-to-live, a length limit, a delivery limit or dead-lettering on the error
 * queue would drop or move the faulted messages it exists to keep, and on a quorum queue with a
 * delivery limit every look at its messages (a peek returns them) counts as a delivery.
 */
final class ErrorQueueArguments {

	/** Carried over from the consumer queue: what kind of queue it is and where it lives. */
	private static final Set<String> CARRIED = Set.of("x-queue-type", "x-quorum-initial-group-size",
			"x-queue-leader-locator", "x-queue-master-locator", "x-queue-mode", "x-queue-version");

	private ErrorQueueArguments() {
	}

	static Map<String, Object> of(Map<String, Object> queueArguments) {
		Map<String, Object> arguments = new LinkedHashMap<>();
		queueArguments.forEach((name, value) -> {
			if (CARRIED.contains(name)) {
				arguments.put(name, value);
			}
		});
		return arguments;
	}

}
