package dev.waybill.benchmarks;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Reads the charts back as XML: a chart that is not well-formed fails {@link #parse}.
 */
final class SvgXml {

	private SvgXml() {
	}

	static Document parse(String svg) throws Exception {
		DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
		// Not namespace-aware, so XPath can name the elements without a prefix.
		factory.setNamespaceAware(false);
		return factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
	}

	static int count(Document document, String xpath) throws Exception {
		return nodes(document, xpath).size();
	}

	static List<Element> nodes(Document document, String xpath) throws Exception {
		NodeList list = (NodeList) XPathFactory.newInstance().newXPath().evaluate(xpath, document, XPathConstants.NODESET);
		List<Element> elements = new ArrayList<>();
		for (int i = 0; i < list.getLength(); i++) {
			elements.add((Element) list.item(i));
		}
		return elements;
	}

	static List<String> texts(Document document) throws Exception {
		return nodes(document, "//text").stream().map(Element::getTextContent).toList();
	}

}
