package dev.waybill.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The regions of this module's test sources that the pages show. A marker names one or more
 * sources separated by spaces, each {@code name#tag} or a whole {@code name}: a name with a file
 * extension ({@code application.yml}) is a test resource, any other a class below
 * {@code dev.waybill.docs.snippets} ({@code readme.ReadmeExample}). A tag's region lies between
 * the lines {@code // tag::name[]} and {@code // end::name[]} ({@code #} comments in YAML and
 * {@code --} in SQL too); it is shown without its common indentation and without the lines of
 * nested markers. Several regions are shown one after the other, a blank line between them.
 */
final class Snippets {

	static final Path TEST_SOURCES = DocumentLinksTests.ROOT.resolve("waybill-docs/src/test");

	private static final Pattern TAG_LINE = Pattern.compile("^\\s*(//|#|--) (tag|end)::[A-Za-z0-9_-]+\\[\\]\\s*$");

	private static final Pattern RESOURCE = Pattern.compile(".*\\.(ya?ml|sql|properties)$");

	private Snippets() {
	}

	/**
	 * The lines a marker names.
	 * @param marker the marker's text, such as {@code gettingstarted.OrderService#producer}
	 * @return the lines, without indentation common to a region
	 * @throws IllegalArgumentException when a source or a tag does not exist
	 */
	static List<String> lines(String marker) throws IOException {
		List<String> lines = new ArrayList<>();
		for (String source : marker.trim().split("\\s+")) {
			if (!lines.isEmpty()) {
				lines.add("");
			}
			lines.addAll(region(source));
		}
		return lines;
	}

	private static List<String> region(String source) throws IOException {
		int hash = source.indexOf('#');
		String name = (hash < 0) ? source : source.substring(0, hash);
		Path file = file(name);
		if (!Files.isRegularFile(file)) {
			throw new IllegalArgumentException("no source " + DocumentLinksTests.ROOT.relativize(file));
		}
		List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
		if (hash < 0) {
			return all.stream().filter((l) -> !TAG_LINE.matcher(l).matches()).toList();
		}
		String tag = source.substring(hash + 1);
		int start = indexOf(all, "tag::" + tag + "[]", 0, file);
		int end = indexOf(all, "end::" + tag + "[]", start, file);
		List<String> region = all.subList(start + 1, end).stream().filter((l) -> !TAG_LINE.matcher(l).matches())
			.toList();
		int indent = region.stream().filter((l) -> !l.isBlank()).mapToInt(Snippets::indentation).min().orElse(0);
		return region.stream().map((l) -> l.isBlank() ? "" : l.substring(indent)).toList();
	}

	static Path file(String name) {
		return RESOURCE.matcher(name).matches() ? TEST_SOURCES.resolve("resources").resolve(name)
				: TEST_SOURCES.resolve("java/dev/waybill/docs/snippets").resolve(name.replace('.', '/') + ".java");
	}

	private static int indexOf(List<String> lines, String marker, int from, Path file) {
		for (int i = from; i < lines.size(); i++) {
			if (lines.get(i).strip().endsWith(marker) && TAG_LINE.matcher(lines.get(i)).matches()) {
				return i;
			}
		}
		throw new IllegalArgumentException("no " + marker + " in " + DocumentLinksTests.ROOT.relativize(file));
	}

	private static int indentation(String line) {
		int i = 0;
		while (i < line.length() && line.charAt(i) == ' ') {
			i++;
		}
		return i;
	}

}
