package dev.waybill.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.waybill.docs.MainMessages.Message;

/**
 * docs/troubleshooting.md has an entry for every message Waybill's main code writes for an
 * operator (see {@link MainMessages}): each WARN and ERROR log line, each exception of the start-up
 * code and each failure analysis. An entry is a table row whose first cell quotes the message as
 * written, {@code <...>} standing for any value and {@code ...} for the rest, in backticks (several
 * backticked texts are alternatives); it covers a message when its quoted text, the values and the
 * rest left open, occurs in the message's constant text. Each row also says what the message means
 * and what to do.
 */
class TroubleshootingTests {

	private static final Path PAGE = DocumentLinksTests.ROOT.resolve("docs/troubleshooting.md");

	private static final Pattern QUOTED = Pattern.compile("`([^`]+)`");

	private static final Pattern OPEN = Pattern.compile("<[^>]*>|\\.\\.\\.");

	/**
	 * Letters of constant text a message needs to be listed and an entry to count, so that a
	 * wrapper such as {@code <...>; retrying in <...>} needs none and no entry covers every message.
	 */
	private static final int MINIMUM_QUOTE = 15;

	@Test
	void everyMessageOfTheMainCodeHasAnEntry() throws IOException {
		List<Pattern> entries = entries();
		List<Message> messages = MainMessages.read();
		// a floor, so that a scanner that stops finding messages fails rather than passes
		assertThat(messages).hasSizeGreaterThan(60);
		List<String> missing = new ArrayList<>();
		for (Message message : messages) {
			if (message.constantLength() >= MINIMUM_QUOTE
					&& entries.stream().noneMatch((entry) -> entry.matcher(message.skeleton()).find())) {
				missing.add(message.source() + " (" + message.kind() + "): " + message.shown());
			}
		}
		assertThat(missing).as("messages with no entry in docs/troubleshooting.md").isEmpty();
	}

	@Test
	void everyEntrySaysWhatItMeansAndWhatToDo() throws IOException {
		List<String> incomplete = new ArrayList<>();
		for (String row : rows()) {
			String[] cells = row.substring(1, row.length() - 1).split("(?<!\\\\)\\|");
			if (cells.length != 3 || cells[1].isBlank() || cells[2].isBlank()) {
				incomplete.add(row);
			}
		}
		assertThat(incomplete).isEmpty();
		assertThat(rows()).hasSizeGreaterThan(30);
	}

	/** One pattern per quoted text of the first cell of each entry. */
	static List<Pattern> entries() throws IOException {
		List<Pattern> entries = new ArrayList<>();
		for (String row : rows()) {
			String first = row.substring(1, row.indexOf('|', 1));
			Matcher quoted = QUOTED.matcher(first);
			while (quoted.find()) {
				String text = quoted.group(1);
				if (OPEN.matcher(text).replaceAll("").replaceAll("[\\s\\p{Punct}]", "").length() < MINIMUM_QUOTE) {
					continue;
				}
				List<String> pieces = new ArrayList<>();
				for (String piece : OPEN.split(text, -1)) {
					pieces.add(Pattern.quote(piece.strip()));
				}
				entries.add(Pattern.compile(String.join(".*?", pieces), Pattern.DOTALL));
			}
		}
		return entries;
	}

	/** The rows of the page's tables, without their header and separator rows. */
	private static List<String> rows() throws IOException {
		return Files.readAllLines(PAGE, StandardCharsets.UTF_8).stream().map(String::strip)
			.filter((l) -> l.startsWith("|") && l.endsWith("|") && !l.startsWith("|---") && !l.startsWith("| Message"))
			.toList();
	}

}
