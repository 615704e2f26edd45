package dev.waybill.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * docs/configuration.md is the configuration reference, generated from the
 * {@code META-INF/spring-configuration-metadata.json} every module's build produces (each key, its
 * type, default and description, and the keys removed with their replacements). The test fails
 * when the page differs from what the metadata gives, or a key has no description. To regenerate
 * the page: {@code mvn -pl waybill-docs -am verify -Dtest=ConfigurationReferenceTests
 * -Dsurefire.failIfNoSpecifiedTests=false -Dwaybill.docs.write=true}.
 */
class ConfigurationReferenceTests {

	private static final Path PAGE = DocumentLinksTests.ROOT.resolve("docs/configuration.md");

	private static final String PREFIX = "waybill.";

	@Test
	void everyKeyHasADescription() throws IOException {
		assertThat(properties().values().stream()
			.filter((p) -> !p.has("deprecation") && text(p, "description").isBlank())
			.map((p) -> text(p, "name"))).as("waybill.* keys without a description (Javadoc on the field)").isEmpty();
	}

	@Test
	void thePageIsTheMetadata() throws IOException {
		String page = render(properties());
		if (Boolean.getBoolean("waybill.docs.write")) {
			Files.writeString(PAGE, page, StandardCharsets.UTF_8);
		}
		assertThat(Files.exists(PAGE) ? Files.readString(PAGE, StandardCharsets.UTF_8) : "")
			.as("docs/configuration.md is generated: rerun this test with -Dwaybill.docs.write=true")
			.isEqualTo(page);
	}

	/** Every waybill.* property of every module on the class path, by name. */
	static Map<String, JsonNode> properties() throws IOException {
		Map<String, JsonNode> properties = new TreeMap<>();
		JsonMapper json = JsonMapper.builder().build();
		for (URL url : Collections.list(ConfigurationReferenceTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream in = url.openStream()) {
				for (JsonNode property : json.readTree(in).path("properties")) {
					String name = text(property, "name");
					if (name.startsWith(PREFIX)) {
						properties.putIfAbsent(name, property);
					}
				}
			}
		}
		return properties;
	}

	static String render(Map<String, JsonNode> properties) {
		StringBuilder page = new StringBuilder();
		page.append("# Configuration reference\n\n")
			.append("You want to know what a `waybill.*` key does, its type and its default. Every key Waybill binds ")
			.append("is below, generated from the metadata the build produces (the Javadoc of the properties classes), ")
			.append("so an IDE shows the same text. A key Waybill does not know fails start-up, naming the key.\n\n");
		Map<String, List<JsonNode>> groups = new TreeMap<>();
		List<JsonNode> removed = new ArrayList<>();
		for (JsonNode property : properties.values()) {
			if (property.has("deprecation")) {
				removed.add(property);
				continue;
			}
			String name = text(property, "name").substring(PREFIX.length());
			int dot = name.indexOf('.');
			groups.computeIfAbsent(PREFIX + ((dot < 0) ? "(top level)" : name.substring(0, dot)), (k) -> new ArrayList<>())
				.add(property);
		}
		for (Map.Entry<String, List<JsonNode>> group : groups.entrySet()) {
			page.append("## ").append(group.getKey().replace("waybill.(top level)", "waybill")).append("\n\n")
				.append("| key | type | default | description |\n|---|---|---|---|\n");
			for (JsonNode property : group.getValue()) {
				page.append("| `").append(text(property, "name")).append("` | ").append(cell(type(property)))
					.append(" | ").append(defaultValue(property)).append(" | ").append(cell(text(property, "description")))
					.append(" |\n");
			}
			page.append('\n');
		}
		if (!removed.isEmpty()) {
			page.append("## Removed keys\n\nSetting one of these fails start-up, naming its replacement.\n\n")
				.append("| key | replacement | why |\n|---|---|---|\n");
			for (JsonNode property : removed) {
				JsonNode deprecation = property.path("deprecation");
				String replacement = text(deprecation, "replacement");
				page.append("| `").append(text(property, "name")).append("` | ")
					.append(replacement.isEmpty() ? "(none)" : "`" + replacement + "`").append(" | ")
					.append(cell(text(deprecation, "reason"))).append(" |\n");
			}
			page.append('\n');
		}
		return page.toString();
	}

	private static String type(JsonNode property) {
		return text(property, "type").replace("java.lang.", "").replace("java.time.", "").replace("java.util.", "");
	}

	private static String defaultValue(JsonNode property) {
		JsonNode value = property.get("defaultValue");
		if (value == null || value.isNull()) {
			return "";
		}
		if (value.isArray()) {
			List<String> items = new ArrayList<>();
			value.forEach((item) -> items.add(item.asString()));
			return items.isEmpty() ? "" : "`" + String.join(", ", items) + "`";
		}
		return "`" + value.asString() + "`";
	}

	private static String cell(String text) {
		return text.replace("|", "\\|").replace("\r", "").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;");
	}

	private static String text(JsonNode node, String field) {
		JsonNode value = node.get(field);
		return (value == null || value.isNull()) ? "" : value.asString();
	}

}
