package dev.waybill.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultFilesTests {

	private static final String DOC = "# Title\n\nintro\n\n<!-- results:start -->\nold table\n<!-- results:end -->\n\nafter\n";

	@Test
	void theTableBetweenTheMarkersIsReplacedAndTheRestKept() {
		assertThat(ResultFiles.replaceBetweenMarkers(DOC, "| new |"))
			.isEqualTo("# Title\n\nintro\n\n<!-- results:start -->\n| new |\n<!-- results:end -->\n\nafter\n");
	}

	@Test
	void replacingTwiceGivesTheSameDocument() {
		String once = ResultFiles.replaceBetweenMarkers(DOC, "| new |\n");
		assertThat(ResultFiles.replaceBetweenMarkers(once, "| new |\n")).isEqualTo(once);
	}

	@Test
	void aMissingMarkerIsNamed() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ResultFiles.replaceBetweenMarkers("text\n<!-- results:start -->\n", "x"))
			.withMessageEndingWith("<!-- results:end --> is missing");
	}

	@Test
	void markersOutOfOrderOrRepeatedAreRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ResultFiles.replaceBetweenMarkers("<!-- results:end -->\n<!-- results:start -->\n", "x"))
			.withMessage("<!-- results:end --> comes before <!-- results:start --> in the document");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ResultFiles.replaceBetweenMarkers(DOC + "<!-- results:start -->\n", "x"))
			.withMessageContaining("more than once");
	}

	@Test
	void aRunWritesTimestampedAndLatestFiles(@TempDir Path directory) throws Exception {
		Path results = directory.resolve("results");
		Path written = ResultFiles.write(results, "| md |\n", "kind\n", LocalDateTime.of(2026, 11, 23, 14, 5, 9));
		assertThat(written).isEqualTo(results.resolve("20261123-140509.md"));
		assertThat(Files.readString(written)).isEqualTo("| md |\n");
		assertThat(Files.readString(results.resolve("20261123-140509.csv"))).isEqualTo("kind\n");
		assertThat(Files.readString(results.resolve("latest.md"))).isEqualTo("| md |\n");
		assertThat(Files.readString(results.resolve("latest.csv"))).isEqualTo("kind\n");
	}

	@Test
	void theDocumentIsUpdatedInPlace(@TempDir Path directory) throws Exception {
		Path document = directory.resolve("BENCHMARKS.md");
		Files.writeString(document, DOC);
		ResultFiles.updateDocument(document, "| fresh |");
		assertThat(Files.readString(document)).contains("<!-- results:start -->\n| fresh |\n<!-- results:end -->")
			.doesNotContain("old table");
	}

	@Test
	void whatLiesBetweenTheMarkersIsRead() {
		assertThat(ResultFiles.betweenMarkers(DOC)).isEqualTo("old table\n");
		assertThat(ResultFiles.betweenMarkers(ResultFiles.replaceBetweenMarkers(DOC, "| new |"))).isEqualTo("| new |\n");
		assertThatIllegalArgumentException().isThrownBy(() -> ResultFiles.betweenMarkers("no markers"))
			.withMessageEndingWith("<!-- results:start --> is missing");
	}

}
