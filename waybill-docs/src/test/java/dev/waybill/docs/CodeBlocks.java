package dev.waybill.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The fenced code blocks of the README and the guide, each with the HTML comment just before it
 * that says where it comes from: {@code <!-- snippet: source#tag ... -->} for a block copied from
 * this module's test sources (see {@link Snippets}), {@code <!-- unchecked: why -->} for one that
 * is deliberately neither compiled nor bound.
 */
final class CodeBlocks {

	private static final Pattern FENCE = Pattern.compile("^( *)```([A-Za-z0-9_-]*)\\s*$");

	private static final Pattern MARKER = Pattern.compile("^\\s*<!-- (snippet|unchecked): (.+?) -->\\s*$");

	private CodeBlocks() {
	}

	/**
	 * A fenced block.
	 * @param page the page
	 * @param line the line of its opening fence, from 1
	 * @param language the fence's language, empty if none
	 * @param indent the fence's indentation, which every line of the block carries
	 * @param kind {@code snippet}, {@code unchecked} or empty when no marker precedes it
	 * @param marker the marker's text after the kind
	 * @param lines the block's lines without the indentation
	 */
	record Block(Path page, int line, String language, String indent, String kind, String marker, List<String> lines) {

		String where() {
			return DocumentLinksTests.ROOT.relativize(this.page) + ":" + this.line;
		}

		/** The index of the block's first line in the page's lines (the line after the fence's). */
		int first() {
			return this.line;
		}

		String text() {
			return String.join("\n", this.lines) + "\n";
		}

	}

	/** The README, BENCHMARKS.md and every page of docs/. */
	static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>(
				List.of(DocumentLinksTests.ROOT.resolve("README.md"), DocumentLinksTests.ROOT.resolve("BENCHMARKS.md")));
		try (Stream<Path> guide = Files.list(DocumentLinksTests.ROOT.resolve("docs"))) {
			guide.filter((p) -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	/** Every fenced block of every page. */
	static List<Block> all() throws IOException {
		List<Block> blocks = new ArrayList<>();
		for (Path page : pages()) {
			blocks.addAll(read(page, Files.readAllLines(page, StandardCharsets.UTF_8)));
		}
		return blocks;
	}

	/** Every block of every page in one language. */
	static List<Block> all(String language) throws IOException {
		return all().stream().filter((b) -> b.language().equals(language)).toList();
	}

	static List<Block> read(Path page, List<String> lines) {
		List<Block> blocks = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			Matcher open = FENCE.matcher(lines.get(i));
			if (!open.matches()) {
				continue;
			}
			String indent = open.group(1);
			int end = i + 1;
			while (end < lines.size() && !lines.get(end).strip().equals("```")) {
				end++;
			}
			List<String> body = new ArrayList<>();
			for (String line : lines.subList(i + 1, Math.min(end, lines.size()))) {
				body.add(line.startsWith(indent) ? line.substring(indent.length()) : line.stripLeading());
			}
			Matcher marker = (i > 0) ? MARKER.matcher(lines.get(i - 1)) : null;
			boolean marked = marker != null && marker.matches();
			blocks.add(new Block(page, i + 1, open.group(2), indent, marked ? marker.group(1) : "",
					marked ? marker.group(2) : "", body));
			i = end;
		}
		return blocks;
	}

}
