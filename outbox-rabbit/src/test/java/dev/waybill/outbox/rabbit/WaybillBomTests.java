package dev.waybill.outbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import com.rabbitmq.client.impl.ClientVersion;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The BOM users import pins the RabbitMQ client these tests run with, and every library module.
 */
class WaybillBomTests {

	private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

	@Test
	void theBomPinsTheTestedRabbitmqClientAndEveryLibraryModule() throws Exception {
		Document bom = parse(ROOT.resolve("waybill-bom/pom.xml"));
		String pinned = ((Element) bom.getElementsByTagName("properties").item(0))
			.getElementsByTagName("amqp-client.version")
			.item(0)
			.getTextContent();
		assertThat(pinned).as("waybill-bom's amqp-client.version").isEqualTo(ClientVersion.VERSION);
		List<String> managed = new ArrayList<>();
		NodeList artifacts = bom.getElementsByTagName("artifactId");
		for (int i = 0; i < artifacts.getLength(); i++) {
			managed.add(artifacts.item(i).getTextContent());
		}
		assertThat(managed).contains("amqp-client", "outbox-core", "outbox-hibernate", "inbox", "outbox-rabbit",
				"retention-worker", "waybill-test");
		Document parent = parse(ROOT.resolve("pom.xml"));
		String version = ((Element) parent.getDocumentElement()).getElementsByTagName("version").item(0).getTextContent();
		assertThat(bom.getDocumentElement().getElementsByTagName("version").item(0).getTextContent())
			.as("waybill-bom's version").isEqualTo(version);
	}

	private static Document parse(Path pom) throws Exception {
		assertThat(pom).exists();
		try (var in = Files.newInputStream(pom)) {
			return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
		}
	}

}
