package dev.waybill.outbox;

/**
 * The states of an outbox scope an operator looks at: not yet published, or given up.
 *
 * @since 0.1
 */
public enum ScopeStatus {

	/** Written and not yet published: waiting, leased to a relay, or backing off after a failure. */
	PENDING,

	/** Exhausted its attempts; kept with its last error until an operator redrives or deletes it. */
	DEAD;

	/**
	 * Returns the value of the {@code status} column.
	 * @return the column value
	 */
	public String column() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

	/**
	 * Parses a status case-insensitively.
	 * @param text {@code pending} or {@code dead}
	 * @return the status
	 * @throws IllegalArgumentException naming the accepted values
	 */
	public static ScopeStatus parse(String text) {
		for (ScopeStatus status : values()) {
			if (status.name().equalsIgnoreCase(text.trim())) {
				return status;
			}
		}
		throw new IllegalArgumentException("Unknown scope status '" + text + "'; use 'pending' or 'dead'");
	}

}
