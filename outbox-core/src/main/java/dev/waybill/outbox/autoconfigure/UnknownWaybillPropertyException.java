package dev.waybill.outbox.autoconfigure;

import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at start-up when a key under {@code waybill.*} names no property Waybill knows, most
 * likely a misspelt one that would otherwise be ignored without a word. Names each key, where it
 * was set, and the closest known property.
 *
 * @since 0.1
 */
final class UnknownWaybillPropertyException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final transient List<UnknownProperty> properties;

	/**
	 * Creates the exception.
	 * @param properties the unknown keys, at least one
	 */
	UnknownWaybillPropertyException(List<UnknownProperty> properties) {
		super(message(properties));
		this.properties = List.copyOf(properties);
	}

	/**
	 * Returns the unknown keys.
	 * @return the keys in the order they were found
	 */
	List<UnknownProperty> getProperties() {
		return this.properties;
	}

	private static String message(List<UnknownProperty> properties) {
		return ((properties.size() == 1) ? "Unknown Waybill configuration property: "
				: "Unknown Waybill configuration properties:\n  ")
				+ properties.stream().map(UnknownProperty::describe).collect(Collectors.joining("\n  "))
				+ "\nA misspelt key would be ignored without a word, so start-up stops. Correct or remove it.";
	}

	/**
	 * One key Waybill does not know.
	 *
	 * @param name the key, in Spring Boot's canonical form (e.g. {@code waybill.retention.completd-after})
	 * @param origin where it was set (a file and line, an environment variable), {@code null} if unknown
	 * @param closest the known property closest to it, {@code null} if none
	 */
	record UnknownProperty(String name, @Nullable String origin, @Nullable String closest) {

		/**
		 * Returns the key, where it was set and the suggestion, in one sentence.
		 * @return e.g. {@code 'waybill.relay.bach-size' (from ...) is unknown; did you mean 'waybill.outbox.relay.batch-size'?}
		 */
		public String describe() {
			return where() + " is unknown" + ((this.closest != null) ? "; did you mean '" + this.closest + "'?" : ".");
		}

		String where() {
			return "'" + this.name + "'" + ((this.origin != null) ? " (from " + this.origin + ")" : "");
		}

	}

}
