package dev.waybill.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * No module imports another module's internal packages, in main or in test code: what modules
 * share lives in {@code dev.waybill.kernel}, and tests that wire another module's parts use that
 * module's test fixtures (docs/contributing.md, "API and internal packages").
 */
class ModuleBoundaryTests {

  private static final Pattern INTERNAL_IMPORT = Pattern
    .compile("^import (?:static )?(dev\\.waybill\\.[\\w.]*\\.internal\\.?[\\w.]*);", Pattern.MULTILINE);

  @Test
  void noModuleImportsAnotherModulesInternals() throws IOException {
    Map<String, String> ownerOfType = typesByModule();
    List<String> crossings = new ArrayList<>();
    for (Map.Entry<String, String> type : ownerOfType.entrySet()) {
      Path file = DocumentLinksTests.ROOT.resolve(type.getValue()).resolve(sourcePathOf(type.getKey()));
      if (!Files.isRegularFile(file)) {
        continue;
      }
      String module = moduleOf(type.getValue());
      Matcher imports = INTERNAL_IMPORT.matcher(Files.readString(file));
      while (imports.find()) {
        String owner = owner(imports.group(1), ownerOfType);
        if (owner != null && !owner.equals(module)) {
          crossings.add(DocumentLinksTests.ROOT.relativize(file) + " imports " + imports.group(1) + " of " + owner);
        }
      }
    }
    assertThat(crossings).as("imports of another module's internal packages").isEmpty();
  }

  /** Every source type, by fully qualified name, to its source root ("inbox/src/test/java"). */
  private static Map<String, String> typesByModule() throws IOException {
    Map<String, String> types = new HashMap<>();
    try (Stream<Path> top = Files.list(DocumentLinksTests.ROOT);
        Stream<Path> samples = Files.list(DocumentLinksTests.ROOT.resolve("samples"))) {
      for (Path module : Stream.concat(top, samples).filter(Files::isDirectory).toList()) {
        for (String set : List.of("main", "test")) {
          Path root = module.resolve("src").resolve(set).resolve("java");
          if (!Files.isDirectory(root)) {
            continue;
          }
          try (Stream<Path> files = Files.walk(root)) {
            files.filter((f) -> f.toString().endsWith(".java")).forEach((f) -> {
              String name = root.relativize(f).toString().replace('/', '.').replaceAll("\\.java$", "");
              types.put(name, DocumentLinksTests.ROOT.relativize(module) + "/src/" + set + "/java");
            });
          }
        }
      }
    }
    return types;
  }

  /** The module of an imported name: its type's, or its enclosing type's for a nested type or a member. */
  private static String owner(String imported, Map<String, String> ownerOfType) {
    for (String name = imported; name.contains("."); name = name.substring(0, name.lastIndexOf('.'))) {
      String root = ownerOfType.get(name);
      if (root != null) {
        return moduleOf(root);
      }
    }
    return null;
  }

  private static String moduleOf(String sourceRoot) {
    return sourceRoot.substring(0, sourceRoot.indexOf("/src/"));
  }

  private static String sourcePathOf(String type) {
    return type.replace('.', '/') + ".java";
  }

}
