package dev.waybill.outbox.rabbit.internal;

/**
 * RabbitMQ was reached but refused what Waybill needs to start (the credentials or virtual host,
 * a permission, a queue's arguments), or its TLS certificate was rejected: nothing to wait for, an
 * operator must act.
 */
public final class BrokerRefusedException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String description;

	private final String action;

	BrokerRefusedException(String message, String description, String action, Throwable cause) {
		super(message, cause);
		this.description = description;
		this.action = action;
	}

	/**
	 * Returns what the broker refused, with its reason.
	 * @return the description
	 */
	public String getDescription() {
		return this.description;
	}

	/**
	 * Returns what to check or change.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
