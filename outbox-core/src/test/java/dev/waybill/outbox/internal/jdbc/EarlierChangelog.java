package dev.waybill.outbox.internal.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.waybill.outbox.test.TestSchema;

/**
 * Waybill's changelog as an installation of an earlier version has it applied: every changeset
 * before a given one. Applying it and then the whole changelog is the upgrade a running
 * installation goes through.
 */
public final class EarlierChangelog {

	private static final String RESOURCE = "db/changelog/waybill/waybill-changelog.yaml";

	private EarlierChangelog() {
	}

	/**
	 * Applies the changesets of the changelog that come before {@code firstNewChangeSet} to the
	 * schema's tables.
	 * @param schema the schema
	 * @param firstNewChangeSet the id of the first changeset the earlier version did not have
	 */
	public static void applyBefore(TestSchema schema, String firstNewChangeSet) throws Exception {
		Path directory = Files.createTempDirectory("waybill-changelog");
		try {
			Path file = directory.resolve(RESOURCE);
			Files.createDirectories(file.getParent());
			Files.writeString(file, before(firstNewChangeSet));
			// No parent: the class loader finds only the shortened changelog, not the current one.
			try (URLClassLoader loader = new URLClassLoader(new URL[] { directory.toUri().toURL() }, null)) {
				new OutboxSchemaInitializer(schema.dataSource(), schema.tables(), loader).migrate();
			}
		}
		finally {
			try (var paths = Files.walk(directory)) {
				paths.sorted(java.util.Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
		}
	}

	private static String before(String changeSet) throws IOException {
		String changelog;
		try (InputStream in = EarlierChangelog.class.getResourceAsStream("/" + RESOURCE)) {
			changelog = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		int at = changelog.indexOf("\n  - changeSet:\n      id: " + changeSet + "\n");
		if (at < 0) {
			throw new IllegalArgumentException("No changeset " + changeSet + " in " + RESOURCE);
		}
		// Also drops the comment above the changeset: it belongs to it.
		int comments = changelog.lastIndexOf("\n\n", at);
		return changelog.substring(0, (comments >= 0) ? comments + 1 : at + 1);
	}

}
