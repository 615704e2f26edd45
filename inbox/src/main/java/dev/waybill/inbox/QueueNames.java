package dev.waybill.inbox;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The rules for a consumer's queue name: what the broker accepts, and short enough that its error
 * queue's name fits too.
 */
final class QueueNames {

	static final String ERROR_QUEUE_SUFFIX = "_error";

	private static final Pattern QUEUE_NAME = Pattern.compile("[A-Za-z0-9_.:-]+");

	private QueueNames() {
	}

	/**
	 * Says what is wrong with {@code queue} as a consumer's queue name.
	 * @param queue the candidate
	 * @return the problem, or {@literal null} when the name is valid
	 */
	static @Nullable String problem(@Nullable String queue) {
		if (queue == null || queue.isBlank()) {
			return "must not be blank";
		}
		if (queue.length() > ConsumerRegistration.MAX_QUEUE_LENGTH) {
			return "is " + queue.length() + " characters long; at most " + ConsumerRegistration.MAX_QUEUE_LENGTH
					+ " are allowed, so that its error queue '<queue>" + ERROR_QUEUE_SUFFIX + "' fits in 255";
		}
		if (!QUEUE_NAME.matcher(queue).matches()) {
			return "may contain only letters, digits, '-', '_', '.' and ':'";
		}
		if (queue.startsWith("amq.")) {
			return "must not start with 'amq.', which the broker reserves";
		}
		return null;
	}

	/**
	 * Checks a consumer's queue name.
	 * @param queue the candidate
	 * @return the queue name
	 * @throws IllegalArgumentException naming the queue and what is wrong with it
	 */
	static String requireValid(String queue) {
		String problem = problem(queue);
		if (problem != null) {
			throw new IllegalArgumentException("Queue '" + queue + "' " + problem);
		}
		return queue;
	}

}
