package dev.waybill.outbox.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.json.JsonParserFactory;

/**
 * The {@code waybill.*} entries of the configuration metadata every module on the class path
 * carries (as Spring Boot's properties migrator reads it): the properties, for suggestions; the
 * {@code @ConfigurationProperties} classes, so a module that is present but inactive on this host
 * still has its keys checked; and the removed keys with their replacements.
 *
 * @since 0.1
 */
final class WaybillMetadata {

	static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("waybill");

	private static final Log logger = LogFactory.getLog(WaybillMetadata.class);

	private static final List<String> RESOURCES = List.of("META-INF/spring-configuration-metadata.json",
			"META-INF/additional-spring-configuration-metadata.json");

	private final Set<KnownName> properties = new LinkedHashSet<>();

	private final Set<String> propertiesClasses = new LinkedHashSet<>();

	private final List<RemovedProperty> removed = new ArrayList<>();

	/**
	 * A property that fails start-up when set.
	 * @param name the removed key
	 * @param replacement the key to set instead, {@code null} if none
	 * @param reason why it went
	 */
	record RemovedProperty(String name, @Nullable String replacement, @Nullable String reason) {
	}

	/**
	 * Reads the metadata the class loader sees.
	 * @param classLoader the application's class loader
	 * @return the metadata
	 */
	static WaybillMetadata read(@Nullable ClassLoader classLoader) {
		ClassLoader loader = (classLoader != null) ? classLoader : WaybillMetadata.class.getClassLoader();
		WaybillMetadata metadata = new WaybillMetadata();
		for (String resource : RESOURCES) {
			try {
				for (URL url : Collections.list(loader.getResources(resource))) {
					metadata.add(url);
				}
			}
			catch (IOException ex) {
				logger.debug("Cannot read " + resource, ex);
			}
		}
		return metadata;
	}

	/** The properties still in use, as names to suggest. */
	Set<KnownName> properties() {
		return this.properties;
	}

	/** The classes of the top-level {@code waybill.*} groups, by name. */
	Set<String> propertiesClasses() {
		return this.propertiesClasses;
	}

	List<RemovedProperty> removed() {
		return this.removed;
	}

	private void add(URL url) throws IOException {
		String json;
		try (InputStream in = url.openStream()) {
			json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		if (!json.contains("\"waybill")) {
			return; // Spring Boot's own metadata, most of the class path's, is not parsed
		}
		Map<String, Object> parsed = JsonParserFactory.getJsonParser().parseMap(json);
		for (Map<?, ?> group : entries(parsed.get("groups"))) {
			if (waybill(group) != null && group.get("type") instanceof String type
					&& type.equals(group.get("sourceType")) && group.get("sourceMethod") == null) {
				this.propertiesClasses.add(type);
			}
		}
		for (Map<?, ?> property : entries(parsed.get("properties"))) {
			ConfigurationPropertyName name = waybill(property);
			if (name == null) {
				continue;
			}
			if (property.get("deprecation") instanceof Map<?, ?> deprecation && "error".equals(deprecation.get("level"))) {
				this.removed.removeIf((known) -> known.name().equals(name.toString()));
				this.removed.add(new RemovedProperty(name.toString(), text(deprecation.get("replacement")),
						text(deprecation.get("reason"))));
			}
			else if (!(property.get("deprecation") instanceof Map<?, ?>)) {
				this.properties.add(new KnownName(name, isScalarContainer(text(property.get("type")))));
			}
		}
	}

	private static List<Map<?, ?>> entries(@Nullable Object list) {
		List<Map<?, ?>> entries = new ArrayList<>();
		if (list instanceof List<?> items) {
			items.stream().filter(Map.class::isInstance).forEach((item) -> entries.add((Map<?, ?>) item));
		}
		return entries;
	}

	private static @Nullable ConfigurationPropertyName waybill(Map<?, ?> entry) {
		if (entry.get("name") instanceof String name && ConfigurationPropertyName.isValid(name)) {
			ConfigurationPropertyName parsed = ConfigurationPropertyName.of(name);
			return (ROOT.equals(parsed) || ROOT.isAncestorOf(parsed)) ? parsed : null;
		}
		return null;
	}

	private static @Nullable String text(@Nullable Object value) {
		return (value instanceof String text && !text.isBlank()) ? text : null;
	}

	/** A map or collection of plain values: any key below it is its own. */
	private static boolean isScalarContainer(@Nullable String type) {
		if (type == null || !type.startsWith("java.util.")) {
			return false;
		}
		String element = type.substring(type.lastIndexOf(',') + 1).replace("<", ",");
		element = element.substring(element.lastIndexOf(',') + 1);
		return element.startsWith("java.");
	}

}
