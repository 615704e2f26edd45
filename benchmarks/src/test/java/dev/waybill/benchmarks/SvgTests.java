package dev.waybill.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

class SvgTests {

	@Test
	void textIsEscapedSoTheDocumentStaysWellFormed() throws Exception {
		String svg = new Svg(100, 50).text(1, 2, "p99 < 50 & \"quoted\" 'x'\u0001", 10, "start", "#000", true)
			.rect(0, 0, 10, 10, "#fff", "a <title> & more")
			.document("A & B");
		Document document = SvgXml.parse(svg);
		Element text = (Element) document.getElementsByTagName("text").item(0);
		assertThat(text.getTextContent()).isEqualTo("p99 < 50 & \"quoted\" 'x'");
		assertThat(text.getAttribute("font-weight")).isEqualTo("bold");
		assertThat(document.getDocumentElement().getAttribute("width")).isEqualTo("100");
		assertThat(document.getDocumentElement().getAttribute("viewBox")).isEqualTo("0 0 100 50");
		assertThat(SvgXml.count(document, "//rect/title[.='a <title> & more']")).isEqualTo(1);
		assertThat(SvgXml.count(document, "/svg/title[.='A & B']")).isEqualTo(1);
	}

	@Test
	void theBackgroundIsWhiteWhateverThePageIs() throws Exception {
		Document document = SvgXml.parse(new Svg(10, 10).document("t"));
		assertThat(SvgXml.count(document, "/svg/rect[@width='100%' and @fill='#ffffff']")).isEqualTo(1);
	}

	@Test
	void coordinatesHaveOneDecimalInTheRootLocaleAndNegativeSizesBecomeZero() throws Exception {
		assertThat(Svg.n(12.345)).isEqualTo("12.3");
		assertThat(Svg.n(7.0)).isEqualTo("7");
		Document document = SvgXml.parse(new Svg(10, 10).rect(1, 1, -5, 3, "#000", null).document("t"));
		assertThat(SvgXml.count(document, "//rect[@width='0' and @height='3']")).isEqualTo(1);
	}

	@Test
	void rotatedTextTurnsAroundItsAnchor() throws Exception {
		Document document = SvgXml.parse(new Svg(10, 10).text(20, 30, "ms", 10, "middle", "#000", false, -90).document("t"));
		Element text = (Element) document.getElementsByTagName("text").item(0);
		assertThat(text.getAttribute("transform")).isEqualTo("rotate(-90 20 30)");
	}

}
