package dev.waybill.outbox.store;

/**
 * A publish whose store cannot be told, or is not one its transaction can write to: nothing is
 * written, and the transaction fails rather than put a message into another store's outbox.
 *
 * @since 0.1
 */
public class UnknownStoreException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message what could not be told, which stores there are, and the fix
	 */
	public UnknownStoreException(String message) {
		super(message);
	}

}
