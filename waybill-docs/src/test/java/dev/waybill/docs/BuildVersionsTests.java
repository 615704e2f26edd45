package dev.waybill.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.waybill.docs.CodeBlocks.Block;

/**
 * The versions the XML blocks of the README and the guide tell a reader to use are the build's:
 * Waybill's own (for {@code waybill-bom}), Spring Boot's (its parent and BOM) and, where a block
 * pins it, the RabbitMQ client's ({@code rabbit-amqp-client.version}), read from the root
 * {@code pom.xml}.
 */
class BuildVersionsTests {

	private static final Pattern ARTIFACT_VERSION = Pattern
		.compile("<artifactId>([a-z0-9-]+)</artifactId>\\s*(?:<!--[^>]*-->\\s*)?<version>([^<]+)</version>");

	private static final Pattern CLIENT_VERSION = Pattern.compile("<rabbit-amqp-client\\.version>([^<]+)<");

	@Test
	void theXmlBlocksNameTheBuildsVersions() throws IOException {
		String pom = Files.readString(DocumentLinksTests.ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
		String waybill = first(pom, "<artifactId>waybill-parent</artifactId>\\s*<version>([^<]+)<");
		String boot = first(pom, "<spring-boot\\.version>([^<]+)<");
		String client = first(pom, "<amqp-client\\.version>([^<]+)<");
		Map<String, String> expected = Map.of("waybill-bom", waybill, "spring-boot-starter-parent", boot,
				"spring-boot-dependencies", boot);
		List<String> wrong = new ArrayList<>();
		int checked = 0;
		for (Block block : CodeBlocks.all("xml")) {
			Matcher artifact = ARTIFACT_VERSION.matcher(block.text());
			while (artifact.find()) {
				String version = expected.get(artifact.group(1));
				if (version != null) {
					checked++;
					if (!version.equals(artifact.group(2))) {
						wrong.add(block.where() + ": " + artifact.group(1) + " " + artifact.group(2) + ", the build's is " + version);
					}
				}
			}
			Matcher property = CLIENT_VERSION.matcher(block.text());
			while (property.find()) {
				checked++;
				if (!client.equals(property.group(1))) {
					wrong.add(block.where() + ": amqp-client " + property.group(1) + ", the build's is " + client);
				}
			}
		}
		assertThat(wrong).isEmpty();
		assertThat(checked).as("versions found in the XML blocks").isGreaterThanOrEqualTo(4);
	}

	private static String first(String text, String regex) {
		Matcher m = Pattern.compile(regex).matcher(text);
		assertThat(m.find()).as(regex).isTrue();
		return m.group(1);
	}

}
