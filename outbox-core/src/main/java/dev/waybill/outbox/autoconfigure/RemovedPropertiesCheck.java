package dev.waybill.outbox.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;

import dev.waybill.outbox.autoconfigure.RemovedWaybillPropertyException.SetRemovedProperty;
import dev.waybill.outbox.autoconfigure.WaybillMetadata.RemovedProperty;

/**
 * Finds the removed {@code waybill.*} keys that are still set: every module declares its removed
 * keys in its configuration metadata, with {@code "deprecation": {"level": "error", "replacement": ...}}.
 * Every property source counts, environment variables too: a removed key set anywhere is a
 * setting that no longer takes effect.
 *
 * @since 0.1
 */
final class RemovedPropertiesCheck {

	private RemovedPropertiesCheck() {
	}

	/**
	 * Returns the removed keys that are set.
	 * @param sources the environment's property sources
	 * @param removed the removed keys the metadata declares
	 * @return each key set, where, and its replacement; empty if none
	 */
	static List<SetRemovedProperty> find(Iterable<ConfigurationPropertySource> sources, List<RemovedProperty> removed) {
		List<SetRemovedProperty> found = new ArrayList<>();
		for (RemovedProperty property : removed) {
			ConfigurationPropertyName name = ConfigurationPropertyName.of(property.name());
			for (ConfigurationPropertySource source : sources) {
				ConfigurationProperty set = source.getConfigurationProperty(name);
				if (set != null || source.containsDescendantOf(name) == ConfigurationPropertyState.PRESENT) {
					String origin = (set != null && set.getOrigin() != null) ? set.getOrigin().toString() : null;
					found.add(new SetRemovedProperty(property, origin));
					break;
				}
			}
		}
		return found;
	}

}
