package dev.waybill.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Every relative link in the README, BENCHMARKS.md and docs/ names a file that exists and, with a
 * {@code #fragment}, a heading of that file, so a page moved or a heading renamed fails the build.
 *
 * @since 0.1
 */
class DocumentLinksTests {

  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$");

  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void everyRelativeLinkResolvesToAFileAndHeading() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path page : CodeBlocks.pages()) {
      for (String target : links(page)) {
        String problem = problem(page, target);
        if (problem != null) {
          broken.add(ROOT.relativize(page) + ": " + target + " (" + problem + ")");
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  @Test
  void theReadmeStaysOneScreenAndLinksEveryGuidePage() throws IOException {
    List<String> readme = Files.readAllLines(ROOT.resolve("README.md"));
    assertThat(readme).hasSizeLessThan(250);
    String text = String.join("\n", readme);
    try (Stream<Path> guide = Files.list(ROOT.resolve("docs"))) {
      guide.filter((p) -> p.toString().endsWith(".md"))
          .forEach((p) -> assertThat(text).contains("docs/" + p.getFileName()));
    }
  }

  @Test
  void theReadmeKeepsTheTwoCommands() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    assertThat(readme).contains("\n./demo\n").contains("\nmvn -B verify\n");
  }

  private static List<String> links(Path page) throws IOException {
    List<String> links = new ArrayList<>();
    boolean fenced = false;
    for (String line : Files.readAllLines(page)) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
      }
      if (fenced) {
        continue;
      }
      Matcher m = LINK.matcher(line);
      while (m.find()) {
        String target = m.group(1);
        if (!target.contains("://") && !target.startsWith("mailto:")) {
          links.add(target);
        }
      }
    }
    return links;
  }

  private static String problem(Path page, String target) throws IOException {
    int hash = target.indexOf('#');
    String file = (hash < 0) ? target : target.substring(0, hash);
    Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
    if (!Files.exists(resolved)) {
      return "no such file";
    }
    if (hash < 0 || !resolved.toString().endsWith(".md")) {
      return null;
    }
    return anchors(resolved).contains(target.substring(hash + 1)) ? null : "no such heading";
  }

  /** The anchors a code host gives a page's headings: lower case, punctuation dropped, spaces to dashes. */
  static Set<String> anchors(Path page) throws IOException {
    Set<String> anchors = new HashSet<>();
    boolean fenced = false;
    for (String line : Files.readAllLines(page)) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
      }
      Matcher m = HEADING.matcher(line);
      if (!fenced && m.matches()) {
        String base = m.group(1).strip().toLowerCase(Locale.ROOT)
            .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
        String anchor = base;
        for (int n = 1; !anchors.add(anchor); n++) {
          anchor = base + "-" + n;
        }
      }
    }
    return anchors;
  }
}
