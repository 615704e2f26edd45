package dev.waybill.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.waybill.docs.CodeBlocks.Block;

/**
 * Every Java block of the README and the guide is a region of this module's test sources, which
 * the build compiles against today's API (marked {@code <!-- snippet: ... -->}, see
 * {@link Snippets}), or is marked {@code <!-- unchecked: why -->}; every marked block of any
 * language equals its region. To rewrite the pages from the sources: {@code mvn -pl waybill-docs
 * -am verify -Dtest=SnippetsTests -Dsurefire.failIfNoSpecifiedTests=false -Dwaybill.docs.write=true}.
 */
class SnippetsTests {

	@Test
	void everyJavaBlockIsMarked() throws IOException {
		assertThat(CodeBlocks.all("java").stream().filter((b) -> b.kind().isEmpty()).map(Block::where))
			.as("Java blocks without <!-- snippet: ... --> or <!-- unchecked: ... --> just before them")
			.isEmpty();
	}

	@Test
	void everySnippetIsItsSourceRegion() throws IOException {
		boolean write = Boolean.getBoolean("waybill.docs.write");
		List<String> problems = new ArrayList<>();
		for (Path page : CodeBlocks.pages()) {
			List<String> lines = new ArrayList<>(Files.readAllLines(page, StandardCharsets.UTF_8));
			List<Block> blocks = CodeBlocks.read(page, lines);
			// From the last block up, so a rewritten block does not shift the lines of those before it.
			for (int b = blocks.size() - 1; b >= 0; b--) {
				Block block = blocks.get(b);
				if (!block.kind().equals("snippet")) {
					continue;
				}
				List<String> expected;
				try {
					expected = Snippets.lines(block.marker());
				}
				catch (IllegalArgumentException ex) {
					problems.add(block.where() + ": " + ex.getMessage());
					continue;
				}
				if (expected.equals(block.lines())) {
					continue;
				}
				if (write) {
					List<String> indented = expected.stream().map((l) -> l.isEmpty() ? l : block.indent() + l).toList();
					lines.subList(block.first(), block.first() + block.lines().size()).clear();
					lines.addAll(block.first(), indented);
				}
				else {
					problems.add(block.where() + ": differs from " + block.marker() + firstDifference(block.lines(), expected)
							+ " (rerun with -Dwaybill.docs.write=true to copy the sources in)");
				}
			}
			if (write) {
				Files.writeString(page, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
			}
		}
		assertThat(problems).isEmpty();
	}

	private static String firstDifference(List<String> page, List<String> source) {
		int i = 0;
		while (i < page.size() && i < source.size() && page.get(i).equals(source.get(i))) {
			i++;
		}
		return " at its line " + (i + 1) + ": page '" + ((i < page.size()) ? page.get(i) : "(end)") + "', source '"
				+ ((i < source.size()) ? source.get(i) : "(end)") + "'";
	}

}
