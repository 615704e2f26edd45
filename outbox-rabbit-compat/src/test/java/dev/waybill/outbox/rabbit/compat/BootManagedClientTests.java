package dev.waybill.outbox.rabbit.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.xml.parsers.DocumentBuilderFactory;

import com.rabbitmq.client.impl.ClientVersion;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The tests of this module run with the RabbitMQ client Spring Boot's dependency management pins,
 * and that client is not the one {@code waybill-bom} pins (else this module would repeat what
 * outbox-rabbit's own tests do).
 */
class BootManagedClientTests {

	private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

	@Test
	void runsWithTheClientSpringBootManages() throws Exception {
		Path bootDependencies = Path.of(System.getProperty("waybill.boot-dependencies-pom"));
		assertThat(ClientVersion.VERSION).as("the client on this module's class path")
			.isEqualTo(property(bootDependencies, "rabbit-amqp-client.version"));
		assertThat(ClientVersion.VERSION).as("Spring Boot now manages the client waybill-bom pins; "
				+ "this module tests nothing more than outbox-rabbit's own tests")
			.isNotEqualTo(property(ROOT.resolve("waybill-bom/pom.xml"), "amqp-client.version"));
	}

	private static String property(Path pom, String name) throws Exception {
		assertThat(pom).exists();
		try (InputStream in = Files.newInputStream(pom)) {
			Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
			return ((Element) document.getElementsByTagName("properties").item(0)).getElementsByTagName(name)
				.item(0)
				.getTextContent();
		}
	}

}
