package dev.waybill.inbox.spi;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.springframework.core.NestedExceptionUtils;

import dev.waybill.inbox.Fault;
import dev.waybill.kernel.HostNames;

/**
 * Builds the {@link Fault} events a consumer publishes when it gives a message up, in one place
 * for the inbox and for the test harness's hand-made ones.
 */
public final class FaultEvents {

	// Enough frames to find the failing line; the rest would only fill the header budget.
	private static final int STACK_FRAMES = 10;


	private static final String HOST = HostNames.local();

	private FaultEvents() {
	}

	/**
	 * Returns the fault event of a message given up on this host.
	 * @param <T> the type of the message that failed
	 * @param message the message, as the consumer read it
	 * @param messageId its id
	 * @param messageType its message type name
	 * @param correlationId its correlation id, or {@literal null}
	 * @param conversationId its conversation id, or {@literal null}
	 * @param consumer the consumer (queue) that gave it up
	 * @param at when it was given up
	 * @param attempts the failed deliveries, the last one included
	 * @param exception the last delivery's exception, or {@literal null} when it failed without one
	 * @param summary what failed, for a failure without an exception
	 * @return the event
	 */
	public static <T> Fault<T> of(T message, UUID messageId, String messageType, @Nullable String correlationId,
			@Nullable String conversationId, String consumer, Instant at, int attempts, @Nullable Throwable exception,
			String summary) {
		return new Fault<>(message, messageId, messageType, correlationId, conversationId, consumer, HOST, at, attempts,
				(exception != null) ? exception.getClass().getName() : "",
				(exception != null) ? Objects.toString(exception.getMessage(), "") : summary,
				(exception != null) ? stackTrace(exception) : "");
	}

	/**
	 * The exception and its first frames, as a fault event and an error-queue copy carry it.
	 * @param exception the failure
	 * @return its text
	 */
	public static String stackTrace(Throwable exception) {
		StringBuilder trace = new StringBuilder(exception.toString());
		StackTraceElement[] frames = exception.getStackTrace();
		int shown = Math.min(frames.length, STACK_FRAMES);
		for (int i = 0; i < shown; i++) {
			trace.append("\n\tat ").append(frames[i]);
		}
		if (frames.length > shown) {
			trace.append("\n\t... ").append(frames.length - shown).append(" more");
		}
		Throwable root = NestedExceptionUtils.getRootCause(exception);
		if (root != null) {
			trace.append("\nCaused by: ").append(root);
		}
		return trace.toString();
	}

}
