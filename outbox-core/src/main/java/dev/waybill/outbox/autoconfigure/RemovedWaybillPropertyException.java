package dev.waybill.outbox.autoconfigure;

import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.waybill.outbox.autoconfigure.WaybillMetadata.RemovedProperty;

/**
 * Thrown at start-up when a removed {@code waybill.*} key is set: it would be ignored without a
 * word, so start-up stops naming the key that replaced it.
 *
 * @since 0.1
 */
final class RemovedWaybillPropertyException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final transient List<SetRemovedProperty> properties;

	RemovedWaybillPropertyException(List<SetRemovedProperty> properties) {
		super(((properties.size() == 1) ? "Removed Waybill configuration property: "
				: "Removed Waybill configuration properties:\n  ")
				+ properties.stream().map(SetRemovedProperty::describe).collect(Collectors.joining("\n  ")));
		this.properties = List.copyOf(properties);
	}

	List<SetRemovedProperty> getProperties() {
		return this.properties;
	}

	/**
	 * A removed key that is set.
	 *
	 * @param removed the key, its replacement and the reason
	 * @param origin where it was set, {@code null} if unknown
	 */
	record SetRemovedProperty(RemovedProperty removed, @Nullable String origin) {

		/**
		 * Returns the key, where it was set, its replacement and the reason, in one sentence.
		 * @return e.g. {@code 'waybill.retention.archive' (from ...) was removed; set 'waybill.retention.archive-after' instead: ...}
		 */
		String describe() {
			String replacement = this.removed.replacement();
			String reason = this.removed.reason();
			return "'" + this.removed.name() + "'" + ((this.origin != null) ? " (from " + this.origin + ")" : "")
					+ " was removed" + ((replacement != null) ? "; set '" + replacement + "' instead" : "")
					+ ((reason != null) ? ". " + reason : ".");
		}

	}

}
