package dev.waybill.outbox.rabbit;

/**
 * The broker could not be reached, or refused an operation on an error queue.
 *
 * @since 0.1
 */
public final class ErrorQueueException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message what failed
	 * @param cause why
	 */
	public ErrorQueueException(String message, Throwable cause) {
		super(message, cause);
	}

}
