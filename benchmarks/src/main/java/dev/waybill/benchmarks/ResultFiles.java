package dev.waybill.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Writes a run's table under the results directory, as {@code <timestamp>.md} and
 * {@code <timestamp>.csv} plus {@code latest.md} and {@code latest.csv}, and can put the Markdown
 * into BENCHMARKS.md between {@value #START} and {@value #END}.
 */
public final class ResultFiles {

	/** The line before the table in BENCHMARKS.md. */
	public static final String START = "<!-- results:start -->";

	/** The line after the table in BENCHMARKS.md. */
	public static final String END = "<!-- results:end -->";

	private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

	private ResultFiles() {
	}

	/**
	 * Writes the four files.
	 * @param directory the results directory, created when missing
	 * @param markdown the Markdown to write
	 * @param csv the CSV to write
	 * @param when the run's start, for the file names
	 * @return the timestamped Markdown file
	 */
	public static Path write(Path directory, String markdown, String csv, LocalDateTime when) throws IOException {
		Files.createDirectories(directory);
		String stamp = STAMP.format(when);
		Path md = directory.resolve(stamp + ".md");
		Files.writeString(md, markdown, StandardCharsets.UTF_8);
		Files.writeString(directory.resolve(stamp + ".csv"), csv, StandardCharsets.UTF_8);
		Files.writeString(directory.resolve("latest.md"), markdown, StandardCharsets.UTF_8);
		Files.writeString(directory.resolve("latest.csv"), csv, StandardCharsets.UTF_8);
		return md;
	}

	/**
	 * Replaces what lies between the marker lines of a document with {@code content}.
	 * @param document the document's text
	 * @param content the new text between the markers
	 * @return the new document
	 * @throws IllegalArgumentException when a marker is missing, repeated or out of order
	 */
	public static String replaceBetweenMarkers(String document, String content) {
		int start = document.indexOf(START);
		int end = document.indexOf(END);
		checkMarkers(document, start, end);
		String body = content.endsWith("\n") ? content : content + "\n";
		return document.substring(0, start + START.length()) + "\n" + body + document.substring(end);
	}

	/**
	 * What lies between the marker lines of a document.
	 * @param document the document's text
	 * @return the text between the markers, without the markers' own lines
	 * @throws IllegalArgumentException when a marker is missing, repeated or out of order
	 */
	public static String betweenMarkers(String document) {
		int start = document.indexOf(START);
		int end = document.indexOf(END);
		checkMarkers(document, start, end);
		String between = document.substring(start + START.length(), end);
		return between.startsWith("\n") ? between.substring(1) : between;
	}

	private static void checkMarkers(String document, int start, int end) {
		if (start < 0 || end < 0) {
			throw new IllegalArgumentException("The document needs the lines " + START + " and " + END
					+ " around the results table; " + (start < 0 ? START : END) + " is missing");
		}
		if (document.indexOf(START, start + 1) >= 0 || document.indexOf(END, end + 1) >= 0) {
			throw new IllegalArgumentException("The document has " + START + " or " + END + " more than once");
		}
		if (end < start) {
			throw new IllegalArgumentException(END + " comes before " + START + " in the document");
		}
	}

	/**
	 * Puts {@code content} between the markers of a file.
	 * @param file the document, e.g. BENCHMARKS.md
	 * @param content the new table
	 */
	public static void updateDocument(Path file, String content) throws IOException {
		String document = Files.readString(file, StandardCharsets.UTF_8);
		Files.writeString(file, replaceBetweenMarkers(document, content), StandardCharsets.UTF_8);
	}

}
